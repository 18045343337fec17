// WebApiClient: the browser on loopback, same origin. The per-launch token (from the one-time
// link, see token.js) goes as `Authorization: Bearer` on every fetch, the SSE streams included
// (they are read with fetch, never EventSource). Cookies are never sent: the server uses none,
// and a cookie for 127.0.0.1 would reach every other loopback port (docs/threat-model.md).

import { AbstractApiClient } from "./abstract-client.js";

export class WebApiClient extends AbstractApiClient {
  /** @param {{fetch?: typeof fetch, token?: string | null} & ConstructorParameters<typeof AbstractApiClient>[0]} [opts] */
  constructor(opts = {}) {
    super(opts);
    this.kind = "web";
    this.token = opts.token ?? null;
    this.fetchImpl = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  doFetch(url, init) {
    const headers = { ...(init.headers ?? {}) };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    return this.fetchImpl(url, { ...init, headers, credentials: "omit" });
  }
}
