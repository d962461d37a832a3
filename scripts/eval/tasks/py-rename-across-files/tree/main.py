from shop.cart import Cart
from shop.pricing import calc_total

cart = Cart()
cart.add("pen", 1.50)
cart.add("book", 12.00)
print("cart total:", cart.total())
print("quick total:", calc_total([10.0], vat=0.1))
