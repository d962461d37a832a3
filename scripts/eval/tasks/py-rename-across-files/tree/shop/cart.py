from shop.pricing import calc_total


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price):
        self.items.append((name, price))

    def total(self):
        return calc_total([price for _, price in self.items])
