// What the person is told about the model they type to (docs/decisions.md, "UX pass"): the
// host's default model (new sessions start on it) and, per route, its name and whether it can
// use tools (`llm.providers`, `supportsTools`). The welcome and the onboarding notice name the
// default; the composer says when the model it sends to is chat-only. Also raises the
// "provider not configured" banner when the default route cannot serve.

import { providerProblem } from "../state/problems.js";
import { routeName } from "../state/host-words.js";

export class ProviderState {
  /** ctx: {config, status (StatusView), changed()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.routes = [];
    this.defaultSelection = null; // {provider, model} from host.describe
    this.servers = []; // model servers found on this machine (llm.discoverLocal)
    this.newSessionMode = null; // {value, name, description}: the mode new sessions start in (host.describe)
  }

  /** Probe this machine's usual model-server ports (at start and on "Look for local servers");
   * a window that may not ask (a trusted-host browser) simply finds none. */
  async lookForServers() {
    const r = await this.ctx.config.discoverLocal();
    this.servers = r.ok ? r.value.servers : [];
    this.ctx.changed();
    return this.servers;
  }

  async refresh() {
    const { config, status } = this.ctx;
    const [p, d] = await Promise.all([config.providers(), config.describeHost()]);
    if (!p.ok || !d.ok) return; // rely on error codes instead
    this.routes = p.value.providers;
    this.defaultSelection = d.value.provider ? { provider: d.value.provider, model: d.value.model ?? null } : null;
    this.newSessionMode = d.value.newSessionMode ?? null;
    const problem = providerProblem(this.routes, d.value.provider);
    const route = this.route(d.value.provider);
    status.setProblem("provider-not-configured", problem === "provider-not-configured", route?.problem ?? "");
    this.ctx.changed();
  }

  route(provider) {
    return this.routes.find((r) => r.provider === provider) ?? null;
  }

  /** The display name of a chat-only route, else null (unknown routes are not labelled). */
  chatOnly(provider) {
    const r = this.route(provider);
    return r && r.supportsTools === false ? routeName(r) : null;
  }

  /** What new sessions start on: {name, model, tools} or null before the host said. */
  startsOn() {
    const sel = this.defaultSelection;
    if (!sel) return null;
    const r = this.route(sel.provider);
    const acts = this.routes.some((x) => x.active && x.supportsTools !== false && x.provider !== "local");
    return { name: r ? routeName(r) : sel.provider, model: sel.model, tools: r ? r.supportsTools !== false : true, servers: this.servers, acts };
  }
}
