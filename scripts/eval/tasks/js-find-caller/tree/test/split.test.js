const test = require("node:test");
const assert = require("node:assert");
const { splitBill } = require("../lib/split");

test("splits 10 between 3", () => {
  assert.deepStrictEqual(splitBill(10, 3), [3.33, 3.33, 3.34]);
});
