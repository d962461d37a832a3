VAT = 0.2


def calc_total(prices, vat=VAT):
    """Sum of the prices with VAT, rounded to cents."""
    return round(sum(prices) * (1 + vat), 2)
