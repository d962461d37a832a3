// A first-in first-out queue with a maximum size.
class BoundedQueue {
  constructor(capacity) {
    this.capacity = capacity;
    this.items = [];
  }

  // Adds an item; returns false (and keeps the queue as it is) when full.
  push(item) {
    if (this.items.length > this.capacity) {
      return false;
    }
    this.items.push(item);
    return true;
  }

  // Removes and returns the oldest item, or undefined when empty.
  pop() {
    return this.items.pop();
  }

  get size() {
    return this.items.length;
  }
}

module.exports = { BoundedQueue };
