// Reconnect policy: jittered exponential backoff (docs/architecture.md, "Web UI").
// Pure; `random` is injectable.
//
// Attempt n (0-based) has ceiling c = min(cap, base · factor^n); the delay is drawn from
// [c/2, c] ("equal jitter"), so it never collapses to zero and never exceeds the cap.
// reset() after a successful connect starts again at the base.

export class Backoff {
  constructor({ baseMs = 500, factor = 2, capMs = 10_000, random = Math.random } = {}) {
    this.baseMs = baseMs;
    this.factor = factor;
    this.capMs = capMs;
    this.random = random;
    this.attempt = 0;
  }

  /** The ceiling for attempt n (no jitter). */
  ceiling(n) {
    return Math.min(this.capMs, this.baseMs * this.factor ** n);
  }

  /** The next delay in ms; advances the attempt counter. */
  next() {
    const c = this.ceiling(this.attempt);
    this.attempt += 1;
    const r = Math.min(Math.max(this.random(), 0), 1);
    return Math.round(c / 2 + (c / 2) * r);
  }

  reset() {
    this.attempt = 0;
  }
}
