// The welcome notice: shown until it is acknowledged, once per notice version, for every window
// of this host (the `ui-onboarding` settings namespace holds the acknowledged version).

import { h, icon } from "./dom.js";
import { modeWords } from "./welcome.js";
import { t } from "../i18n/i18n.js";

export const NOTICE_VERSION = "2026-11-30.1";

export class OnboardingNotice {
  /** ctx: {config, openSettings()} — `root` receives the notice. */
  constructor(root, ctx) {
    this.ctx = ctx;
    this.revision = null;
    const ack = h("button", { type: "button", class: "btn btn-small btn-primary", testid: "onboarding-ack" }, t("onboarding.ack"));
    ack.addEventListener("click", () => this.acknowledge());
    const settings = h("button", { type: "button", class: "btn btn-small", testid: "onboarding-settings" }, icon("gear"), h("span", {}, t("sidebar.settings")));
    settings.addEventListener("click", () => ctx.openSettings());
    this.el = h(
      "section",
      { class: "onboarding", testid: "onboarding-notice", hidden: true, "aria-label": t("onboarding.label") },
      h(
        "div",
        { class: "onboarding-text" },
        h("strong", {}, t("onboarding.title")),
        t("onboarding.where"),
        (this.mode = h("span", { testid: "onboarding-mode" })),
        t("onboarding.shield"),
        (this.startsOn = h("span", { testid: "onboarding-model" })),
      ),
      h("div", { class: "onboarding-actions" }, settings, ack),
    );
    root.prepend(this.el);
  }

  /** Say what the agent may do in the mode new sessions really start in (`host.describe`'s
   * `newSessionMode`: Ask where Auto has no sandbox), as the welcome does; nothing before the
   * host said, rather than words that may not hold on this machine. */
  setMode(mode) {
    this.modeValue = mode;
    this.mode.textContent = modeWords(mode) ?? "";
  }

  /** Name the model new sessions start on ({name, model, tools} from views/provider-state.js). */
  setStartsOn(on) {
    this.on = on;
    if (!on) return this.startsOn.replaceChildren();
    const which = `${on.name}${on.model ? ` · ${on.model}` : ""}`;
    this.startsOn.textContent = on.tools ? t("onboarding.startsOn", { model: which }) : t("onboarding.startsOnChat", { model: which });
  }

  /** The language changed: say the mode and the model again in it. */
  relabel() {
    this.setMode(this.modeValue);
    this.setStartsOn(this.on);
  }

  /** Show the notice unless this version was acknowledged (nothing when settings are not
   * offered); `describe`: a `settings.describe` value already fetched (else it is fetched). */
  async check(describe) {
    if (describe === undefined) {
      const r = await this.ctx.config.describeSettings();
      describe = r.ok ? r.value : null;
    }
    const view = describe ? describe.namespaces.find((n) => n.ns === "ui-onboarding") : null;
    this.revision = view?.revision ?? null;
    this.el.hidden = !view || view.value?.welcomeNoticeVersion === NOTICE_VERSION;
  }

  async acknowledge() {
    this.el.hidden = true;
    const ops = [{ op: "set", path: ["welcomeNoticeVersion"], value: NOTICE_VERSION }];
    const payload = { ns: "ui-onboarding", ops, ...(this.revision !== null ? { expectedRevision: this.revision } : {}) };
    const r = await this.ctx.config.mutateSettings(payload);
    if (!r.ok) await this.check(); // a conflict: another window changed it; look again
  }
}
