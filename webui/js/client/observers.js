// Microtask-batched envelope observers (docs/architecture.md, "Clients"): every wire message
// of the four kinds is offered to `tap`; subscribers receive them in batches (one call per microtask checkpoint), so a
// frame storm does not call them per frame. A subscriber that throws is isolated: the others and
// the carrier go on. With no subscribers nothing is buffered.

export class EnvelopeObservers {
  /** @param {(err: unknown) => void} [report] where a listener's exception goes */
  constructor(report) {
    this.listeners = new Set();
    this.buffer = [];
    this.scheduled = false;
    this.report = report ?? ((err) => console.error("envelope observer failed", err));
  }

  /** @param {(batch: readonly object[]) => void} listener @returns {() => void} unsubscribe */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tap(message) {
    if (this.listeners.size === 0) return;
    this.buffer.push(message);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  flush() {
    this.scheduled = false;
    const batch = Object.freeze(this.buffer);
    this.buffer = [];
    if (batch.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(batch);
      } catch (err) {
        this.report(err);
      }
    }
  }
}
