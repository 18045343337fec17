// RemoteHosts: the remote hosts reached over SSH (docs/decisions.md, "Remote hosts") — their
// list and connection states (`remote.list`, kept current by `host/remote-status` frames), the
// `remote.*` calls, and the passphrase/password prompts ssh sends (`remote/secret-requested`,
// answered like an approval). No DOM.
//
// Events: "change" (the list or a state changed), "secret" ({rpcId, frame}: ssh asks),
// "secret-resolved" (rpcId), "reconnected" (hostId: connected again after being away — the
// window rebuilds what it shows of that host).

import { Emitter } from "./emitter.js";

export class RemoteHosts extends Emitter {
  constructor({ client }) {
    super();
    this.client = client;
    this.items = [];
    this.sshConfig = [];
    this.loaded = false;
    this.seen = new Map(); // hostId → the last state told (to know a reconnection)
  }

  get(hostId) {
    return this.items.find((h) => h.hostId === hostId) ?? null;
  }

  stateOf(hostId) {
    return this.get(hostId)?.state ?? "disconnected";
  }

  async load() {
    const r = await this.client.call("remote.list", {});
    if (r.ok) {
      this.items = r.value.items;
      this.sshConfig = r.value.sshConfig ?? [];
      this.loaded = true;
      for (const h of this.items) this.seen.set(h.hostId, h.state);
      this.emit("change");
    }
    return r;
  }

  /** A host-stream frame; true when it was one of ours. */
  handleHost(msg) {
    const f = msg.payload;
    if (f.type === "host/remote-status") {
      const before = this.seen.get(f.hostId);
      this.seen.set(f.hostId, f.state);
      const host = this.get(f.hostId);
      if (host) {
        host.state = f.state;
        host.detail = f.detail ?? null;
        this.emit("change");
      } else if (f.state !== "disconnected") {
        this.load();
      }
      if (f.state === "connected") {
        this.load(); // the sandbox and the rest of the view come with the list
        if (before && before !== "connecting") this.emit("reconnected", f.hostId);
        else this.emit("connected", f.hostId);
      }
      return true;
    }
    if (f.type === "remote/secret-requested") {
      this.emit("secret", { rpcId: msg.rpcId, frame: f });
      return true;
    }
    if (f.type === "remote/secret-resolved") {
      this.emit("secret-resolved", f.requestRpcId);
      return true;
    }
    return false;
  }

  async add(target, { name, mode } = {}) {
    const payload = { target, ...(name ? { name } : {}), ...(mode ? { mode } : {}) };
    const r = await this.client.call("remote.add", payload);
    if (r.ok) await this.load();
    return r;
  }

  async update(hostId, patch) {
    const r = await this.client.call("remote.update", { hostId, ...patch });
    if (r.ok) await this.load();
    return r;
  }

  async remove(hostId) {
    const r = await this.client.call("remote.remove", { hostId });
    if (r.ok) await this.load();
    return r;
  }

  test(hostId) {
    return this.client.call("remote.test", { hostId });
  }

  async connect(hostId) {
    const r = await this.client.call("remote.connect", { hostId });
    await this.load();
    return r;
  }

  async disconnect(hostId) {
    const r = await this.client.call("remote.disconnect", { hostId });
    await this.load();
    return r;
  }

  trustHostKey(hostId, fingerprint) {
    return this.client.call("remote.trustHostKey", { hostId, fingerprint });
  }

  /** The answer to ssh's prompt (a passphrase, a password, "yes"): never kept here. */
  answerSecret(rpcId, hostId, secret) {
    return this.client.respond(rpcId, { ok: true, value: { hostId, secret } });
  }

  dismissSecret(rpcId) {
    const cancelled = { code: "cancelled", message: "dismissed by the user", details: {} };
    return this.client.respond(rpcId, { ok: false, error: cancelled }).catch(() => {});
  }

  // ---- the folders and sessions of a host --------------------------------------------------

  listDirectory(hostId, path) {
    return this.client.call("host.listDirectory", path === undefined ? { hostId } : { hostId, path });
  }

  createDirectory(hostId, path, name) {
    return this.client.call("host.createDirectory", { hostId, path, name });
  }

  createSession(hostId, cwd) {
    return this.client.call("session.create", { hostId, cwd });
  }
}

/** The sessions of `summaries` by the remote host they live on (local ones left out). */
export function byHost(summaries) {
  const out = new Map();
  for (const s of summaries) {
    if (!s.hostId) continue;
    if (!out.has(s.hostId)) out.set(s.hostId, []);
    out.get(s.hostId).push(s);
  }
  return out;
}
