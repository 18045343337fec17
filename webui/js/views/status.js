// What the user sees about the connection and configuration: a connecting state, a reconnect
// banner with a live countdown, a host-unreachable state, a desktop host that could not start,
// provider/model banners, the built-in model loading (first local turn), and toasts.

import { h, icon, clear } from "./dom.js";
import { t } from "../i18n/i18n.js";

const BUILT_IN_MODEL = "smollm2-135m-instruct";

export class StatusView {
  /**
   * @param {{banners: HTMLElement, overlay: HTMLElement, toasts: HTMLElement}} roots
   * @param {{retryNow(): void, openSettings(): void}} ctx
   */
  constructor(roots, ctx) {
    this.roots = roots;
    this.ctx = ctx;
    this.conn = { state: "connecting" };
    this.problems = new Map(); // kind → detail
    this.dismissed = new Set();
    this.tick = 0;
    this.connBanner = h("div", { class: "banner banner-warn", testid: "connection-banner", role: "status", hidden: true });
    this.problemBanners = h("div", { class: "problem-banners" });
    this.modelBanner = h("div", { class: "banner banner-info", testid: "model-loading", role: "status", hidden: true });
    roots.banners.append(this.connBanner, this.problemBanners, this.modelBanner);
  }

  /** `host/model-status`: a banner while the built-in model loads; gone once it is ready or failed. */
  setModelStatus({ model, state }) {
    const loading = state === "loading";
    this.modelBanner.hidden = !loading;
    document.documentElement.dataset.modelLoading = String(loading);
    if (loading) {
      // the built-in model, or a downloaded one (docs/decisions.md, "Offline agent")
      const what = !model || model === BUILT_IN_MODEL ? t("status.loadingBuiltIn") : t("status.loadingModel", { model });
      this.modelBanner.replaceChildren(
        h("span", { class: "spinner spinner-small", "aria-hidden": "true" }),
        h("span", {}, h("strong", {}, what), h("span", { class: "banner-more" }, t("status.loadingMore"))),
      );
    }
  }

  setConnection(status) {
    this.conn = status;
    clearInterval(this.tick);
    this.tick = 0;
    if (status.retryAt) this.tick = setInterval(() => this.renderConnection(), 250);
    this.renderConnection();
  }

  countdown() {
    const ms = Math.max(0, (this.conn.retryAt ?? 0) - Date.now());
    return Math.ceil(ms / 1000);
  }

  retryButton(testid = "reconnect-now") {
    const b = h("button", { type: "button", class: "btn btn-small", testid }, icon("retry"), h("span", {}, t("status.retryNow")));
    b.addEventListener("click", () => this.ctx.retryNow());
    return b;
  }

  renderConnection() {
    const s = this.conn;
    const { overlay } = this.roots;
    const neverConnected = !s.describe;
    const waiting = s.retryAt ? t("status.retryingIn", { seconds: this.countdown() }) : t("status.tryingNow");
    const countdown = h("span", { class: "countdown", testid: "reconnect-countdown" }, waiting);
    clear(overlay);
    overlay.hidden = true;
    this.connBanner.hidden = true;
    document.documentElement.dataset.connection = s.state + (s.unreachable ? "-unreachable" : "");
    if (s.state === "connected" || s.state === "idle") return;
    if (s.state === "failed") {
      overlay.hidden = false;
      overlay.append(
        h(
          "div",
          { class: "state-card", testid: "host-failed-state", role: "alert" },
          h("h2", {}, t("status.hostFailed")),
          s.error ? h("p", { testid: "host-failed-reason", translate: "no" }, s.error) : h("p", { testid: "host-failed-reason" }, t("status.hostDidNotStart")),
          h("p", { class: "muted small" }, t("status.hostFailedHelp")),
        ),
      );
      return;
    }
    if (s.needsLink) {
      overlay.hidden = false;
      overlay.append(h("div", { class: "state-card", testid: "needs-link-state", role: "alert" }, h("h2", {}, t("status.needsLinkTitle")), h("p", {}, t("status.needsLink"))));
      return;
    }
    if (neverConnected) {
      overlay.hidden = false;
      if (s.state === "connecting" && !s.error) {
        overlay.append(h("div", { class: "state-card", testid: "connecting-state", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), h("h2", {}, t("status.connecting"))));
      } else {
        overlay.append(
          h(
            "div",
            { class: "state-card", testid: "unreachable-state", role: "alert" },
            h("h2", {}, s.unreachable ? t("status.unreachableTitle") : t("status.connecting")),
            h("p", {}, s.unreachable ? t("status.unreachable") : t("status.firstAttemptFailed")),
            s.error ? h("p", { class: "muted small", translate: "no" }, s.error) : null,
            h("p", {}, countdown),
            this.retryButton(),
          ),
        );
      }
      return;
    }
    this.connBanner.hidden = false;
    this.connBanner.dataset.state = s.unreachable ? "unreachable" : "reconnecting";
    clear(this.connBanner).append(
      h("strong", {}, s.unreachable ? t("status.unreachableShort") : t("status.connectionLost")),
      " ",
      s.retryAt ? countdown : h("span", { testid: "reconnect-countdown" }, t("status.reconnecting")),
      h("span", { class: "spacer" }),
      this.retryButton(),
    );
  }

  /** kind: "provider-not-configured" | "model-unavailable"; detail null clears it. */
  setProblem(kind, active, detail = "") {
    if (active) {
      if (this.problems.get(kind) !== detail) this.dismissed.delete(kind);
      this.problems.set(kind, detail);
    } else this.problems.delete(kind);
    this.renderProblems();
  }

  renderProblems() {
    clear(this.problemBanners);
    for (const [kind, detail] of this.problems) {
      if (this.dismissed.has(kind)) continue;
      const text =
        kind === "provider-not-configured"
          ? [t("status.providerNotReady"), detail ? t("status.providerFix", { detail }) : t("status.providerAddKey")]
          : [detail ? t("status.modelUnavailableNamed", { detail }) : t("status.modelUnavailable"), t("status.modelPickAnother")];
      const open = h("button", { type: "button", class: "btn btn-small", testid: "banner-open-settings" }, icon("gear"), h("span", {}, t("sidebar.settings")));
      open.addEventListener("click", () => this.ctx.openSettings());
      const close = h("button", { type: "button", class: "btn btn-icon btn-small", testid: "banner-dismiss", "aria-label": t("common.dismiss") }, icon("x"));
      close.addEventListener("click", () => {
        this.dismissed.add(kind);
        this.renderProblems();
      });
      this.problemBanners.append(
        h(
          "div",
          { class: "banner banner-error", role: "alert", testid: kind === "provider-not-configured" ? "provider-banner" : "model-banner" },
          h("span", {}, h("strong", {}, text[0]), h("span", { class: "banner-more" }, text[1])),
          h("span", { class: "spacer" }),
          open,
          close,
        ),
      );
    }
  }

  /** A short message; `action` {label, run, testid?} adds a button that runs it and closes the toast. */
  toast(message, tone = "error", action = null) {
    if (!message) return;
    const toast = h("div", { class: `toast tone-${tone}`, testid: "toast", role: tone === "error" ? "alert" : "status" }, h("span", {}, message));
    if (action) {
      const act = h("button", { type: "button", class: "btn btn-small", testid: action.testid ?? "toast-action" }, action.label);
      act.addEventListener("click", () => {
        toast.remove();
        action.run();
      });
      toast.append(act);
    }
    const close = h("button", { type: "button", class: "btn btn-icon btn-small", "aria-label": t("common.dismiss") }, icon("x"));
    close.addEventListener("click", () => toast.remove());
    toast.append(close);
    this.roots.toasts.append(toast);
    setTimeout(() => toast.remove(), 7000);
  }
}
