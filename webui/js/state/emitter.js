// A tiny synchronous event emitter. Listener exceptions are isolated and reported.

export class Emitter {
  constructor() {
    this.map = new Map();
  }

  /** @returns {() => void} unsubscribe */
  on(name, fn) {
    let set = this.map.get(name);
    if (!set) this.map.set(name, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  emit(name, ...args) {
    const set = this.map.get(name);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(...args);
      } catch (err) {
        console.error(`listener for ${name} failed`, err);
      }
    }
  }
}

/** Real timers, injectable as {now, setTimeout, clearTimeout, setInterval, clearInterval}. */
export const realTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (id) => clearInterval(id),
};
