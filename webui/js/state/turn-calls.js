// TurnCalls: what views ask of one session: prompts, stops, its queue, commands, files, model,
// permissions, jobs, goals, MCP servers, subagents. Views call this, never the client
// (docs/architecture.md, "Clients"). Every method resolves to an RpcResult (never throws). No DOM.

import { loadAttachment } from "./attachments.js";

export class TurnCalls {
  constructor(client) {
    this.client = client;
  }

  /** session.prompt with the window's time zone; a host that refuses the zone gets none. */
  prompt(payload) {
    return this.#withZone("session.prompt", payload);
  }

  async #withZone(method, payload) {
    const withZone = { ...payload };
    try {
      withZone.clientTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      /* no time zone: the host uses its own */
    }
    const r = await this.client.call(method, withZone);
    if (!r.ok && r.error.code === "invalid-time-zone") return this.client.call(method, payload);
    return r;
  }

  cancel(payload) {
    return this.client.call("session.cancel", payload);
  }

  updateQueue(payload) {
    return this.client.call("session.updateQueue", payload);
  }

  executeCommand(sessionId, line) {
    return this.client.call("command.execute", { sessionId, line });
  }

  /** Every matching message across sessions, newest first; `cursor` asks for the next page.
   * Aborting `signal` stops the host's search (docs/decisions/search-lane.md). */
  search(query, cursor, signal) {
    return this.client.call("session.search", { query: query.slice(0, 500), ...(cursor ? { cursor } : {}) }, { signal });
  }

  /** One session's matching messages in reading order, with their `total` ("n of N"). */
  searchSession(sessionId, query, cursor, signal) {
    return this.client.call("session.search", { query: query.slice(0, 500), sessionId, ...(cursor ? { cursor } : {}) }, { signal });
  }

  /** An attachment's bytes, fetched once: {url (blob:), data (base64), mediaType, name}; rejects when unavailable. */
  attachment(sessionId, ref) {
    return loadAttachment(this.client, sessionId, ref);
  }

  models(sessionId) {
    return this.client.call("session.models", { sessionId });
  }

  selectModel(payload) {
    return this.client.call("session.selectModel", payload);
  }

  revertTurn(sessionId, turn) {
    return this.client.call("files.revertTurn", { sessionId, turn });
  }

  /** session.rewind: back to before the message at `atSeq` (docs/decisions.md, "Rewind in place"). */
  rewind(sessionId, atSeq, restoreFiles) {
    return this.client.call("session.rewind", { sessionId, atSeq, restoreFiles });
  }

  restorePreview(sessionId, atSeq) {
    return this.client.call("files.restorePreview", { sessionId, atSeq });
  }

  gitStatus(sessionId) {
    return this.client.call("files.gitStatus", { sessionId });
  }

  setPermission(payload) {
    return this.client.call("permission.set", payload);
  }

  revokePermission(payload) {
    return this.client.call("permission.revoke", payload);
  }

  stopJob(sessionId, jobId) {
    return this.client.call("job.stop", { sessionId, jobId });
  }

  jobOutput(sessionId, jobId) {
    return this.client.call("job.output", { sessionId, jobId });
  }

  /** One of the goal bar's actions: `key` is a goal.* method (goal.pause, goal.clear, …). */
  goal(key, payload) {
    if (!key.startsWith("goal.")) throw new Error(`not a goal method: ${key}`);
    return this.client.call(key, payload);
  }

  mcpList(sessionId) {
    return this.client.call("mcp.list", { sessionId });
  }

  restartMcp(payload) {
    return this.client.call("mcp.restart", payload);
  }

  setMcpEnabled(payload) {
    return this.client.call("mcp.setEnabled", payload);
  }

  /** subagent.prompt takes what session.prompt takes: the window's time zone too. */
  messageSubagent(payload) {
    return this.#withZone("subagent.prompt", payload);
  }

  interruptSubagent(payload) {
    return this.client.call("subagent.interrupt", payload);
  }
}
