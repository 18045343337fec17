// The confirmation before the window sends a change that lets the agent do more without asking:
// `/permission <looser preset>` in a session, or a looser default in Settings → Permissions.
// The host refuses such a change to callers without privilege; the window itself is privileged,
// so this question is the person's only chance to say no (docs/decisions.md, "Loosening is
// privileged").

import { confirm } from "./confirm.js";
import { loosens } from "../state/looseness.js";
import { modeName } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

/**
 * Resolve true when the change may be sent: it does not loosen, or the person confirmed it.
 * @param {{from: string, to: string, options?: {value: string, name: string, description?: string}[], where: string}} change
 */
export async function confirmLoosening({ from, to, options = [], where }) {
  if (!loosens(from, to)) return true;
  const named = (v) => options.find((o) => o.value === v);
  const title = (v) => modeName(v, named(v)?.name ?? v);
  const body = [
    t("loosen.goesFrom", { where, from: title(from), to: title(to) }),
    named(to)?.description ?? t("loosen.more"),
  ];
  const choice = await confirm({
    title: t("loosen.title"),
    body,
    testid: "loosen-confirm",
    actions: [{ label: t("loosen.switch", { mode: title(to) }), value: "loosen", tone: "danger", testid: "loosen-confirm-ok" }],
  });
  return choice === "loosen";
}
