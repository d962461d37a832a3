from shop.pricing import compute_total


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price):
        self.items.append((name, price))

    def total(self):
        return compute_total([price for _, price in self.items])
