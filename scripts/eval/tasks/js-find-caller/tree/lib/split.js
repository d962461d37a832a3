const money = require("./money");

// Splits a bill between people; the last person pays the rounding difference.
function splitBill(total, people) {
  const share = money.roundCents(total / people);
  const last = money.roundCents(total - share * (people - 1));
  return Array.from({ length: people }, (_, i) => (i === people - 1 ? last : share));
}

module.exports = { splitBill };
