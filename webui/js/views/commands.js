// Running what the slash menu offers: a session command (command.execute; its result arrives
// as the session's command row) or one of the client's own, /model, /new and /help.

import { describeError } from "../state/problems.js";
import { permissionTarget } from "../state/looseness.js";
import { confirmLoosening } from "./loosen-confirm.js";
import { t } from "../i18n/i18n.js";
import { modeHint, modeName } from "../state/host-words.js";

/** Run `line` (it starts with a command of the session); false when it did not run. */
export async function runCommand(app, line) {
  let s = app.manager.active;
  if (!s) {
    s = await app.newSession(); // a folder the person chose (docs/decisions.md)
    if (!s) return false;
  }
  if (!(await mayLoosen(s, line))) return false; // the line stays in the box
  const r = await app.turns.executeCommand(s.sessionId, line);
  if (!r.ok) {
    app.status.toast(describeError(r.error));
    return false;
  }
  if (!r.value.matched) {
    app.status.toast(t("commands.notHere", { command: line.split(/\s/, 1)[0] }));
    return false;
  }
  app.manager.patchSummary(s.sessionId, { commandsRun: true }); // "New session" will not reuse it
  return true;
}

/** `/permission <preset>` that lets more run unasked waits for the person's confirmation. */
async function mayLoosen(session, line) {
  const to = permissionTarget(line);
  if (to === null) return true;
  const perms = session.projections.get("permissions")?.value;
  const options = (perms?.options ?? []).map((o) => ({ value: o.value, name: modeName(o.value, o.name), description: o.value === "danger-full-access" ? t("perm.fullWarning") : modeHint(o.value, o.description) }));
  if (options.length && !options.some((o) => o.value === to)) return true; // the host names the mistake
  return confirmLoosening({ from: perms?.currentValue ?? "read-only", to, options, where: t("loosen.thisSession") });
}

/** The client's own commands. */
export async function runClient(app, name) {
  if (name === "new") return app.newSession();
  if (name === "model") {
    if (!app.manager.active) return app.status.toast(t("commands.modelNeedsSession"));
    app.modelPicker.select.focus();
    app.modelPicker.select.showPicker?.();
    return;
  }
  if (name === "help") app.help.open(await app.catalogues.get(app.manager.activeId));
}
