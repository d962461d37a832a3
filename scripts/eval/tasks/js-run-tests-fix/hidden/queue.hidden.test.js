const test = require("node:test");
const assert = require("node:assert");
const { BoundedQueue } = require("../src/queue");

test("fifo order", () => {
  const q = new BoundedQueue(3);
  ["a", "b", "c"].forEach((x) => q.push(x));
  assert.deepStrictEqual([q.pop(), q.pop(), q.pop(), q.pop()], ["a", "b", "c", undefined]);
});

test("capacity is a hard bound and frees up after pop", () => {
  const q = new BoundedQueue(2);
  assert.deepStrictEqual([q.push(1), q.push(2), q.push(3)], [true, true, false]);
  assert.strictEqual(q.size, 2);
  assert.strictEqual(q.pop(), 1);
  assert.strictEqual(q.push(4), true);
  assert.strictEqual(q.size, 2);
});
