// BridgeApiClient: the desktop window. No socket: the desktop shell injects
//   window.harnessdeskBridge = { fetch(url, init) → Promise<Response> }
// (url is "/api/<path>" possibly with a query; init = {method, headers, body, signal}; the
// Response's body is a ReadableStream for SSE; aborting init.signal must cancel the call).

import { AbstractApiClient } from "./abstract-client.js";
import { takeLinkToken } from "./token.js";
import { WebApiClient } from "./web-client.js";

export class BridgeApiClient extends AbstractApiClient {
  /** @param {{fetch: (url: string, init: RequestInit) => Promise<Response>}} bridge */
  constructor(bridge, opts = {}) {
    super(opts);
    if (!bridge || typeof bridge.fetch !== "function") throw new Error("BridgeApiClient needs {fetch}");
    this.kind = "bridge";
    this.bridge = bridge;
  }

  doFetch(url, init) {
    return this.bridge.fetch(url, init);
  }
}

/**
 * Resolve the injected bridge: at once if present, else after `pywebviewready` /
 * `harnessdeskbridgeready`, polling as a fallback. Rejects after `timeoutMs`.
 */
export function waitForBridge(win, { timeoutMs = 15_000, pollMs = 50 } = {}) {
  if (win.harnessdeskBridge?.fetch) return Promise.resolve(win.harnessdeskBridge);
  return new Promise((resolve, reject) => {
    let poll;
    let timer;
    const done = () => {
      clearInterval(poll);
      clearTimeout(timer);
      win.removeEventListener?.("pywebviewready", check);
      win.removeEventListener?.("harnessdeskbridgeready", check);
    };
    function check() {
      if (win.harnessdeskBridge?.fetch) {
        done();
        resolve(win.harnessdeskBridge);
      }
    }
    win.addEventListener?.("pywebviewready", check);
    win.addEventListener?.("harnessdeskbridgeready", check);
    poll = setInterval(check, pollMs);
    timer = setTimeout(() => {
      done();
      reject(new Error("the desktop bridge did not appear"));
    }, timeoutMs);
  });
}

/**
 * Pick the carrier: the bridge when the page runs inside the desktop window (the bridge object or
 * `window.pywebview` exists, or the page is not served over http), else same-origin fetch.
 */
export async function createClient(win = globalThis, opts = {}) {
  const inDesktop =
    !!win.harnessdeskBridge || !!win.pywebview || (win.location && !/^https?:$/.test(win.location.protocol));
  if (inDesktop) return new BridgeApiClient(await waitForBridge(win, opts), opts);
  return new WebApiClient({ ...opts, token: takeLinkToken(win) });
}
