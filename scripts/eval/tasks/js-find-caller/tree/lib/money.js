// Money helpers: amounts are numbers of euros.
function roundCents(amount) {
  return Math.round(amount * 100) / 100;
}

function formatEuro(amount) {
  return amount.toFixed(2) + " EUR";
}

module.exports = { roundCents, formatEuro };
