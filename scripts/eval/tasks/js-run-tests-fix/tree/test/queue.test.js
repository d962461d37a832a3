const test = require("node:test");
const assert = require("node:assert");
const { BoundedQueue } = require("../src/queue");

test("pops in the order pushed", () => {
  const q = new BoundedQueue(3);
  q.push("a");
  q.push("b");
  assert.strictEqual(q.pop(), "a");
  assert.strictEqual(q.pop(), "b");
  assert.strictEqual(q.pop(), undefined);
});

test("refuses items beyond capacity", () => {
  const q = new BoundedQueue(2);
  assert.strictEqual(q.push(1), true);
  assert.strictEqual(q.push(2), true);
  assert.strictEqual(q.push(3), false);
  assert.strictEqual(q.size, 2);
});
