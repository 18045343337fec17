// Which permission changes let the agent do more without asking (docs/decisions.md, "Loosening
// is privileged"). The order is the host's (PERMISSION_LOOSENESS, generated from the contract);
// the window asks the person to confirm such a change before it sends it.

import { PERMISSION_LOOSENESS } from "../contract.gen.js";

/** The rank of a preset name: higher lets more run unasked; a name the order lacks is loosest. */
export function looseness(name) {
  const i = PERMISSION_LOOSENESS.indexOf(name);
  return i < 0 ? PERMISSION_LOOSENESS.length - 1 : i;
}

/** Whether going from preset `before` to `after` lets more run without asking. */
export function loosens(before, after) {
  return looseness(after) > looseness(before);
}

/** The preset a `/permission <name>` line switches to, else null (showing, other commands). */
export function permissionTarget(line) {
  const m = /^\/permission[ \t]+(\S+)\s*$/.exec(line ?? "");
  return m ? m[1] : null;
}
