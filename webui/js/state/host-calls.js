// HostCalls: folders, workspaces, session removal and export. Views call this, never the client
// (docs/architecture.md, "Clients"). Calls resolve to an RpcResult (never throw); the export is a
// carrier-level download and throws on failure. No DOM.

export class HostCalls {
  constructor(client) {
    this.client = client;
  }

  /** "bridge" inside the desktop window (a native folder dialog exists), else "web". */
  get carrier() {
    return this.client.kind;
  }

  /** The native dialog for a folder, or (`file`: "gguf") for one file of that kind. */
  pickDirectory(file) {
    return this.client.call("host.pickDirectory", file ? { file } : {});
  }

  /** A folder's child folders; with `files` ("gguf") its files of that kind too. */
  listDirectory(path, files) {
    return this.client.call("host.listDirectory", { ...(path === undefined ? {} : { path }), ...(files ? { files } : {}) });
  }

  createDirectory(path, name) {
    return this.client.call("host.createDirectory", { path, name });
  }

  openPath(path, editor = false) {
    return this.client.call("host.openPath", editor ? { path, editor } : { path });
  }

  createWorkspace(path) {
    return this.client.call("workspace.create", { path });
  }

  archive(sessionId) {
    return this.client.call("workspace.archiveSession", { sessionId });
  }

  unarchive(sessionId) {
    return this.client.call("workspace.unarchiveSession", { sessionId });
  }

  deleteSession(sessionId) {
    return this.client.call("session.delete", { sessionId });
  }

  deleteWorkspace(workspaceId) {
    return this.client.call("workspace.delete", { workspaceId });
  }

  insertSessionBefore(payload) {
    return this.client.call("workspace.insertSessionBefore", payload);
  }

  /** Export a session: `{saved: true}` when the desktop's save dialog took it, else `{response}`
   * (the ZIP, for the view to offer as a download). Throws when the export failed. */
  async exportSession(sessionId) {
    const c = this.client;
    if (c.kind === "bridge" && typeof c.bridge?.download === "function") {
      // the native save dialog; the desktop answers where it wrote the file
      const r = (await c.bridge.download(c.exportUrl(sessionId, true))) ?? {};
      if (r.cancelled) return { saved: false, cancelled: true };
      if (!r.ok) throw new Error(r.error ?? `HTTP ${r.status ?? "?"}`);
      return { saved: true, path: r.path ?? null };
    }
    return { response: await c.fetchExport(sessionId, true) };
  }
}
