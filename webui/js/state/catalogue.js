// What a session offers after a slash: its commands (command.list) and skills (skill.list),
// fetched once per session and dropped when the host says they changed
// (host/commands-changed: every session; host/session-preset-changed: that session). Pure.

export class Catalogues {
  /** @param {{client: {call(method, payload): Promise<any>}}} deps */
  constructor({ client }) {
    this.client = client;
    this.cache = new Map(); // sessionId → Promise<{commands, skills, warnings}>
  }

  /** {commands, skills, warnings} for the session; a failed fetch is not cached. */
  get(sessionId) {
    if (!sessionId) return Promise.resolve({ commands: [], skills: [], warnings: [] });
    let p = this.cache.get(sessionId);
    if (!p) {
      p = this.fetch(sessionId);
      this.cache.set(sessionId, p);
      p.then((v) => v.failed && this.cache.get(sessionId) === p && this.cache.delete(sessionId));
    }
    return p;
  }

  async fetch(sessionId) {
    const [c, s] = await Promise.all([
      this.client.call("command.list", { sessionId }),
      this.client.call("skill.list", { sessionId }),
    ]);
    return {
      commands: c.ok ? c.value.commands : [],
      skills: s.ok ? s.value.skills : [],
      warnings: s.ok ? (s.value.warnings ?? []) : [],
      failed: !c.ok || !s.ok,
    };
  }

  /** Read the session's catalogue again; a good answer replaces the cached one (a failed one
   * keeps it). */
  async refresh(sessionId) {
    if (!sessionId) return;
    const v = await this.fetch(sessionId);
    if (!v.failed) this.cache.set(sessionId, Promise.resolve(v));
  }

  /** Forget one session's catalogue, or every one (null). */
  invalidate(sessionId = null) {
    if (sessionId === null) this.cache.clear();
    else this.cache.delete(sessionId);
  }
}
