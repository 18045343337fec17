// ConnectionController (docs/architecture.md, "Web UI"): opens events.mux + events.host and
// calls host.describe.
// "connected" only when all three succeeded (or the streams have not failed within a 3 s
// stream-open timeout after describe succeeded). Any stream end, throw or stream/error →
// "reconnecting" with jittered exponential backoff and a visible retry time, except when the
// desktop host could not start at all ("failed": final, shown once, no retry); a heartbeat
// watchdog reconnects a stream that sent no bytes for 45 s. Reconnect = rebuild: listeners of
// "connected" re-list sessions and reopen open sessions. Timers and randomness are injected.
//
// Events: "status" (snapshot), "connected" (describe value), "mux" (server-request),
// "host" (server-request), "lost" (error).

import { isTransportFailure, transportErrorOf } from "../client/errors.js";
import { Backoff } from "./backoff.js";
import { Emitter, realTimers } from "./emitter.js";

export class ConnectionController extends Emitter {
  constructor({
    client,
    timers = realTimers,
    random = Math.random,
    openTimeoutMs = 3_000,
    watchdogMs = 45_000,
    watchdogCheckMs = 5_000,
    unreachableAfter = 3,
  }) {
    super();
    this.client = client;
    this.timers = timers;
    this.backoff = new Backoff({ random });
    this.openTimeoutMs = openTimeoutMs;
    this.watchdogMs = watchdogMs;
    this.watchdogCheckMs = watchdogCheckMs;
    this.unreachableAfter = unreachableAfter;
    this.generation = 0;
    this.failures = 0;
    this.status = { state: "idle", attempt: 0, retryAt: null, unreachable: false, error: null, describe: null };
    this.ac = null;
    this.retryTimer = null;
    this.openTimer = null;
    this.watchdog = null;
    this.lastActivity = {};
    this.everConnected = false;
  }

  setStatus(patch) {
    this.status = { ...this.status, ...patch };
    this.emit("status", this.status);
  }

  start() {
    if (this.status.state !== "idle") return;
    this.attempt();
  }

  stop() {
    this.generation++;
    this.teardown();
    this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setStatus({ state: "idle", retryAt: null });
  }

  /** Skip the remaining countdown and try at once. */
  retryNow() {
    if (this.status.state !== "reconnecting" || this.retryTimer === null) return;
    this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.attempt();
  }

  /** Force a rebuild (e.g. the app suspects it missed something). */
  reconnect(reason = "reconnect requested") {
    this.fail(this.generation, new Error(reason));
  }

  teardown() {
    this.ac?.abort();
    this.ac = null;
    this.timers.clearTimeout(this.openTimer);
    this.openTimer = null;
    this.timers.clearInterval(this.watchdog);
    this.watchdog = null;
  }

  attempt() {
    const gen = ++this.generation;
    this.teardown();
    const ac = (this.ac = new AbortController());
    const signal = ac.signal;
    const first = this.failures === 0 && !this.everConnected;
    this.setStatus({ state: first ? "connecting" : "reconnecting", retryAt: null, attempt: this.failures });
    const progress = { mux: false, host: false, describe: null, openTimedOut: false };
    const check = () => {
      if (gen !== this.generation || this.status.state === "connected") return;
      if (progress.describe && ((progress.mux && progress.host) || progress.openTimedOut)) this.connected(gen, progress.describe);
    };
    const fail = (err) => this.fail(gen, err);
    for (const [key, name] of [["events.mux", "mux"], ["events.host", "host"]]) {
      this.lastActivity[key] = this.timers.now();
      this.pump(gen, key, name, signal, () => {
        progress[name] = true;
        check();
      }).catch(fail);
    }
    this.client
      .call("host.describe", {}, { signal })
      .then((r) => {
        if (isTransportFailure(r)) throw transportErrorOf(r.error); // keeps hostFailed and the status
        if (!r.ok) throw new Error(`host.describe failed: ${r.error.message}`);
        progress.describe = r.value;
        check();
      })
      .catch(fail);
    this.openTimer = this.timers.setTimeout(() => {
      progress.openTimedOut = true;
      check();
    }, this.openTimeoutMs);
  }

  async pump(gen, key, name, signal, onOpen) {
    const onActivity = () => {
      this.lastActivity[key] = this.timers.now();
    };
    const stream = await this.client.stream(key, { signal, onActivity });
    if (gen !== this.generation) return stream.close();
    onActivity();
    onOpen();
    for await (const msg of stream) {
      if (gen !== this.generation) return stream.close();
      if (msg.payload.type === "stream/error") {
        const e = msg.payload.error;
        throw new Error(`${key} failed on the host: ${e.code}: ${e.message}`);
      }
      this.emit(name, msg);
    }
    if (gen === this.generation) throw new Error(`${key} ended`);
  }

  connected(gen, describe) {
    if (gen !== this.generation) return;
    this.timers.clearTimeout(this.openTimer);
    this.openTimer = null;
    this.backoff.reset();
    this.failures = 0;
    this.everConnected = true;
    this.setStatus({ state: "connected", attempt: 0, retryAt: null, unreachable: false, error: null, needsLink: false, describe });
    this.watchdog = this.timers.setInterval(() => this.checkWatchdog(gen), this.watchdogCheckMs);
    this.emit("connected", describe);
  }

  checkWatchdog(gen) {
    const now = this.timers.now();
    for (const [key, at] of Object.entries(this.lastActivity)) {
      if (now - at > this.watchdogMs) {
        this.fail(gen, new Error(`${key}: no bytes for ${Math.round((now - at) / 1000)} s`));
        return;
      }
    }
  }

  fail(gen, err) {
    if (gen !== this.generation || this.status.state === "idle" || this.status.state === "failed") return;
    this.generation++; // later callbacks of this attempt are ignored
    const wasConnected = this.status.state === "connected";
    this.teardown();
    if (err?.hostFailed) {
      // The desktop host could not start: final for this run, retrying cannot help.
      this.setStatus({ state: "failed", retryAt: null, unreachable: false, needsLink: false, error: err.detail || err.message });
      if (wasConnected) this.emit("lost", err);
      return;
    }
    this.failures += 1;
    const delay = this.backoff.next();
    const message = err?.message ?? String(err);
    this.setStatus({
      state: "reconnecting",
      attempt: this.failures,
      retryAt: this.timers.now() + delay,
      retryInMs: delay,
      unreachable: this.failures >= this.unreachableAfter,
      error: message,
      needsLink: err?.status === 401, // the host no longer accepts this tab's token
    });
    if (wasConnected) this.emit("lost", err);
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      this.attempt();
    }, delay);
  }
}
