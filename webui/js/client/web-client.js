// WebApiClient: the browser on loopback. Same origin; the auth cookie travels same-origin.

import { AbstractApiClient } from "./abstract-client.js";

export class WebApiClient extends AbstractApiClient {
  /** @param {{fetch?: typeof fetch} & ConstructorParameters<typeof AbstractApiClient>[0]} [opts] */
  constructor(opts = {}) {
    super(opts);
    this.kind = "web";
    this.fetchImpl = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  doFetch(url, init) {
    return this.fetchImpl(url, { ...init, credentials: "same-origin" });
  }
}
