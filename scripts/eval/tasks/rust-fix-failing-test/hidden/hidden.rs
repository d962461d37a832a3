use calendar::{days_in_month, is_leap_year};

#[test]
fn hidden_leap_years() {
    for (year, leap) in [
        (1600, true),
        (1700, false),
        (1996, true),
        (2000, true),
        (2001, false),
        (2100, false),
        (2400, true),
    ] {
        assert_eq!(is_leap_year(year), leap, "{year}");
    }
}

#[test]
fn hidden_months() {
    assert_eq!(days_in_month(2024, 2), 29);
    assert_eq!(days_in_month(1900, 2), 28);
    assert_eq!(days_in_month(2023, 4), 30);
    assert_eq!(days_in_month(2023, 12), 31);
}
