// AutomationCalls: prompts that run on a schedule, when files change or on demand, and the inbox
// of their runs (docs/decisions/automations.md). Views call this, never the client
// (docs/architecture.md, "Clients"). Every call resolves to an RpcResult (never throws). No DOM.

export class AutomationCalls {
  constructor(client) {
    this.client = client;
  }

  list() {
    return this.client.call("automation.list", {});
  }

  /** fields: {name, cwd, prompt: [{type: "text", text}], model?, preset?, permission, confirmFullAccess?, trigger, enabled} */
  create(fields) {
    return this.client.call("automation.create", fields);
  }

  update(automationId, fields) {
    return this.client.call("automation.update", { automationId, ...fields });
  }

  remove(automationId) {
    return this.client.call("automation.delete", { automationId });
  }

  runNow(automationId) {
    return this.client.call("automation.runNow", { automationId });
  }

  /** Without an automation: the inbox (unread first). */
  runs(automationId) {
    return this.client.call("automation.runs", automationId ? { automationId } : {});
  }

  markRead(runId) {
    return this.client.call("automation.markRead", { runId });
  }

  archiveRun(runId) {
    return this.client.call("automation.archiveRun", { runId });
  }

  discardRun(runId) {
    return this.client.call("automation.discardRun", { runId });
  }
}

/** The schedule presets the dialog offers; each makes a cron expression from a time of day
 * ("every weekday at 9:00" → `0 9 * * 1-5`). `custom` leaves the expression to the person. */
export const SCHEDULE_PRESETS = [
  { id: "weekdays", days: "1-5" },
  { id: "daily", days: "*" },
  { id: "weekly", days: "1" },
  { id: "hourly", hourly: true },
  { id: "custom" },
];

/** The cron expression of a preset at `time` ("HH:MM"); null for `custom` or a bad time. */
export function presetCron(presetId, time) {
  const preset = SCHEDULE_PRESETS.find((p) => p.id === presetId);
  if (!preset || preset.id === "custom") return null;
  if (preset.hourly) return "0 * * * *";
  const m = /^(\d{1,2}):(\d{2})$/.exec(time ?? "");
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) return null;
  return `${Number(m[2])} ${Number(m[1])} * * ${preset.days}`;
}

/** The preset and time a cron expression came from (for editing), else custom. */
export function presetOf(cron) {
  if (cron === "0 * * * *") return { preset: "hourly", time: "09:00" };
  const m = /^(\d{1,2}) (\d{1,2}) \* \* (\S+)$/.exec(cron ?? "");
  const found = m && SCHEDULE_PRESETS.find((p) => p.days === m[3]);
  if (!found) return { preset: "custom", time: "09:00" };
  return { preset: found.id, time: `${m[2].padStart(2, "0")}:${m[1].padStart(2, "0")}` };
}

/** The browser's IANA time zone (what a new schedule defaults to). */
export function localZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The message key of a run's outcome (`changed` counts its files). */
export function outcomeKey(run) {
  return `automations.outcome.${run.outcome}`;
}

/** The prompt's text (the dialog edits text; other parts stay as they are). */
export function promptText(parts) {
  return (parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join("\n");
}

/** The `@path` mentions of a prompt, as the runs' `attach` (each run reads them in its own
 * worktree, as the composer's `@` chips are read at send time): unique, in order, at most 20. */
export function mentionsOf(text) {
  const paths = [];
  for (const m of (text ?? "").matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    const path = m[1].replace(/[.,;:!?)]+$/, "");
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths.slice(0, 20);
}
