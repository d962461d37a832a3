const { formatEuro } = require("./money");

function invoiceLine(item) {
  return item.name + ": " + formatEuro(item.price * item.qty);
}

module.exports = { invoiceLine };
