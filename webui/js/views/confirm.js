// A small modal question: confirm(…) resolves to the chosen action's value, or null on Cancel,
// Esc or the close button. Actions are buttons; the last one is the default (primary or danger),
// focused, except a destructive (danger) one: then Cancel has the focus, so Enter never deletes
// (docs/decisions.md, "Review and context").

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";

/**
 * @param {{title: string, body: (string|Node)[], testid: string,
 *          actions: {label: string, value: string, tone?: "primary"|"danger", testid: string, keepOpen?: (close) => Promise<void>}[]}} spec
 */
export function confirm(spec) {
  return new Promise((resolve) => {
    let done = false;
    const close = (value) => {
      if (done) return;
      done = true;
      if (el.open) el.close();
      el.remove();
      resolve(value);
    };
    const buttons = spec.actions.map((a) => {
      const b = h("button", { type: "button", class: ["btn", a.tone === "primary" && "btn-primary", a.tone === "danger" && "btn-danger-solid"], testid: a.testid }, a.label);
      b.addEventListener("click", async () => {
        if (!a.keepOpen) return close(a.value);
        b.disabled = true;
        try {
          await a.keepOpen();
        } finally {
          b.disabled = false;
        }
      });
      return b;
    });
    const cancel = h("button", { type: "button", class: "btn", testid: `${spec.testid}-cancel` }, t("common.cancel"));
    cancel.addEventListener("click", () => close(null));
    const x = h("button", { type: "button", class: "btn btn-icon", "aria-label": t("common.close") }, icon("x"));
    x.addEventListener("click", () => close(null));
    const titleId = `${spec.testid}-title`;
    const el = h(
      "dialog",
      { class: "dialog confirm-dialog", testid: spec.testid, "aria-labelledby": titleId },
      h("header", { class: "dialog-head" }, h("h2", { id: titleId }, spec.title), x),
      h("div", { class: "dialog-body" }, spec.body.map((p) => (typeof p === "string" ? h("p", {}, p) : p))),
      h("footer", { class: "dialog-foot" }, h("div", { class: "row-actions" }, cancel, ...buttons)),
    );
    el.addEventListener("cancel", (e) => {
      e.preventDefault();
      close(null);
    });
    document.body.append(el);
    el.showModal();
    const last = spec.actions.length - 1;
    (spec.actions[last]?.tone === "danger" ? cancel : buttons[last])?.focus();
  });
}
