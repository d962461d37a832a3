use names::{capitalise, initials};

#[test]
fn hidden_initials() {
    assert_eq!(initials("ada king lovelace"), "A.K.L.");
    assert_eq!(initials("  grace   hopper "), "G.H.");
    assert_eq!(initials(""), "");
    assert_eq!(initials("émile zola"), "É.Z.");
    assert_eq!(initials("X"), "X.");
}

#[test]
fn hidden_capitalise_unchanged() {
    assert_eq!(capitalise("alan  turing"), "Alan Turing");
}
