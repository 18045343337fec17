// Automations (docs/decisions/automations.md): the list (name, trigger, next run, last outcome,
// an enabled switch, Run now, Edit, Delete) and the create/edit form — name, folder, prompt,
// model, agent preset, permission (Full access only after its warning is confirmed), and a
// trigger: a schedule (presets that make a cron expression, the expression itself, a time zone),
// files that change, or by hand.

import { h, icon, clear } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { SCHEDULE_PRESETS, localZone, mentionsOf, presetCron, presetOf, promptText, outcomeKey } from "../state/automation-calls.js";
import { t } from "../i18n/i18n.js";

const PERMISSIONS = ["auto", "read-only", "danger-full-access"];

export class AutomationsDialog {
  /** ctx: {calls: AutomationCalls, toast, folder(): the open session's folder or null, openRun(run), changed()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.items = [];
    this.body = h("div", { class: "automations-body" });
    const close = h("button", { type: "button", class: "btn btn-icon", testid: "automations-close", "aria-label": t("common.close") }, icon("x"));
    close.addEventListener("click", () => this.el.close());
    this.el = h(
      "dialog",
      { class: "settings-dialog automations-dialog", testid: "automations-dialog", "aria-labelledby": "automations-title" },
      h("header", { class: "dialog-head" }, h("h2", { id: "automations-title" }, t("automations.title")), close),
      this.body,
    );
    document.body.append(this.el);
  }

  async open() {
    if (!this.el.open) this.el.showModal();
    await this.showList();
  }

  async showList() {
    const r = await this.ctx.calls.list();
    clear(this.body);
    const add = h("button", { type: "button", class: "btn btn-primary", testid: "automation-new" }, icon("plus"), h("span", {}, t("automations.new")));
    add.addEventListener("click", () => this.showForm(null));
    this.body.append(h("p", { class: "hint" }, t("automations.hint")), add);
    if (!r.ok) {
      this.body.append(h("p", { class: "list-empty", role: "alert" }, describeError(r.error)));
      return;
    }
    this.items = r.value.items;
    if (!this.items.length) {
      this.body.append(h("p", { class: "list-empty", testid: "automations-empty" }, t("automations.none")));
      return;
    }
    this.body.append(h("ul", { class: "automation-list", role: "list" }, this.items.map((a) => this.row(a))));
  }

  row(a) {
    const enabled = h("input", { type: "checkbox", checked: a.enabled, testid: "automation-enabled", "aria-label": t("automations.enabled") });
    enabled.addEventListener("change", async () => {
      const r = await this.ctx.calls.update(a.automationId, { enabled: enabled.checked });
      if (!r.ok) this.ctx.toast(describeError(r.error));
      await this.showList();
    });
    const runNow = h("button", { type: "button", class: "btn btn-small", testid: "automation-run-now" }, t("automations.runNow"));
    runNow.addEventListener("click", async () => {
      runNow.disabled = true;
      const r = await this.ctx.calls.runNow(a.automationId);
      if (!r.ok) {
        runNow.disabled = false;
        this.ctx.toast(describeError(r.error));
        return;
      }
      this.ctx.toast(t("automations.started", { name: a.name }));
      this.ctx.changed();
      await this.showList();
    });
    const edit = h("button", { type: "button", class: "btn btn-small", testid: "automation-edit" }, t("automations.edit"));
    edit.addEventListener("click", () => this.showForm(a));
    const del = h("button", { type: "button", class: "btn btn-small btn-danger", testid: "automation-delete" }, t("automations.delete"));
    del.addEventListener("click", async () => {
      const sure = await confirm({
        title: t("automations.delete"),
        body: [t("automations.deleteConfirm", { name: a.name })],
        testid: "automation-delete-confirm",
        actions: [{ label: t("automations.delete"), value: "delete", tone: "danger", testid: "automation-delete-yes" }],
      });
      if (sure !== "delete") return;
      const r = await this.ctx.calls.remove(a.automationId);
      if (!r.ok) this.ctx.toast(describeError(r.error));
      this.ctx.changed();
      await this.showList();
    });
    const when = a.nextRunAt ? t("automations.next", { when: new Date(a.nextRunAt).toLocaleString() }) : "";
    const last = a.lastRun ? t(outcomeKey(a.lastRun), { count: a.lastRun.changedFiles }) : t("automations.neverRan");
    return h(
      "li",
      { class: "automation-row", testid: "automation-row", dataset: { automationId: a.automationId } },
      h("label", { class: "automation-switch" }, enabled),
      h("div", { class: "automation-main" }, h("strong", { translate: "no" }, a.name), h("span", { class: "muted" }, triggerText(a.trigger), when ? ` · ${when}` : "", ` · ${last}`)),
      h("div", { class: "automation-actions" }, runNow, edit, del),
    );
  }

  /** The create (a: null) or edit form. */
  showForm(a) {
    clear(this.body);
    const field = (label, control, hint) => h("label", { class: "form-row" }, h("span", { class: "form-label" }, label), control, hint ? h("span", { class: "hint" }, hint) : null);
    const name = h("input", { type: "text", required: true, testid: "automation-name", value: a?.name ?? "" });
    const cwd = h("input", { type: "text", required: true, testid: "automation-cwd", value: a?.cwd ?? this.ctx.folder() ?? "", translate: "no" });
    const prompt = h("textarea", { rows: "4", required: true, testid: "automation-prompt" });
    prompt.value = promptText(a?.prompt);
    // model and preset: typed, or picked from what this host offers (a datalist keeps a model the
    // list does not show, e.g. one of a server that is off right now)
    const model = h("input", { type: "text", testid: "automation-model", value: a?.model ?? "", placeholder: t("automations.modelDefault"), translate: "no", list: "automation-models" });
    const preset = h("input", { type: "text", testid: "automation-preset", value: a?.preset ?? "", placeholder: t("automations.presetDefault"), translate: "no", list: "automation-presets" });
    const models = h("datalist", { id: "automation-models", testid: "automation-models" }, (this.ctx.models?.() ?? []).map((m) => h("option", { value: m.value, translate: "no" }, m.label)));
    const presets = h("datalist", { id: "automation-presets", testid: "automation-presets" });
    this.ctx.presets?.().then((items) => presets.append(...items.map((p) => h("option", { value: p.id, translate: "no" }, p.name ?? p.id))));
    const permission = h("select", { testid: "automation-permission" }, PERMISSIONS.map((p) => h("option", { value: p }, t(`mode.${p}.name`))));
    permission.value = a?.permission ?? "auto";
    const confirmFull = h("input", { type: "checkbox", testid: "automation-confirm-full" });
    const fullRow = h("label", { class: "form-row full-access-confirm", hidden: permission.value !== "danger-full-access" }, confirmFull, h("span", {}, t("automations.confirmFull")), h("span", { class: "hint warn" }, t("settings.fullAccessWarning")));

    const trigger = a?.trigger ?? { kind: "schedule", cron: "0 9 * * 1-5", timeZone: localZone() };
    const kind = h("select", { testid: "automation-trigger" }, ["schedule", "files", "manual"].map((k) => h("option", { value: k }, t(`automations.trigger.${k}`))));
    kind.value = trigger.kind;
    const from = presetOf(trigger.cron);
    const preset2 = h("select", { testid: "automation-schedule-preset" }, SCHEDULE_PRESETS.map((p) => h("option", { value: p.id }, t(`automations.preset.${p.id}`))));
    preset2.value = from.preset;
    const time = h("input", { type: "time", testid: "automation-time", value: from.time });
    const cron = h("input", { type: "text", testid: "automation-cron", value: trigger.cron ?? "0 9 * * 1-5", translate: "no" });
    const zone = h("input", { type: "text", testid: "automation-zone", value: trigger.timeZone ?? localZone(), translate: "no" });
    const fromPreset = () => {
      const made = presetCron(preset2.value, time.value);
      if (made) cron.value = made;
      time.disabled = preset2.value === "hourly" || preset2.value === "custom";
    };
    preset2.addEventListener("change", fromPreset);
    time.addEventListener("change", fromPreset);
    time.disabled = from.preset === "hourly" || from.preset === "custom";
    cron.addEventListener("input", () => (preset2.value = presetOf(cron.value.trim()).preset));
    const globs = h("input", { type: "text", testid: "automation-globs", value: (trigger.paths ?? []).join(", "), placeholder: "src/**/*.py, tests/*", translate: "no" });
    const schedule = h("div", { class: "trigger-part", testid: "automation-schedule" }, field(t("automations.when"), h("span", { class: "inline" }, preset2, time)), field(t("automations.cron"), cron, t("automations.cronHint")), field(t("automations.zone"), zone));
    const files = h("div", { class: "trigger-part" }, field(t("automations.globs"), globs, t("automations.globsHint")));
    const showTrigger = () => {
      schedule.hidden = kind.value !== "schedule";
      files.hidden = kind.value !== "files";
    };
    kind.addEventListener("change", showTrigger);
    showTrigger();
    const enabled = h("input", { type: "checkbox", checked: a ? a.enabled : true, testid: "automation-form-enabled" });
    const problem = h("p", { class: "form-problem", role: "alert", testid: "automation-problem", hidden: true });
    permission.addEventListener("change", () => {
      fullRow.hidden = permission.value !== "danger-full-access";
      problem.hidden = true;
    });
    const save = h("button", { type: "submit", class: "btn btn-primary", testid: "automation-save" }, t("common.save"));
    const cancel = h("button", { type: "button", class: "btn", testid: "automation-cancel" }, t("common.cancel"));
    cancel.addEventListener("click", () => this.showList());
    const form = h(
      "form",
      { class: "automation-form", testid: "automation-form" },
      field(t("automations.name"), name),
      field(t("automations.folder"), cwd, t("automations.folderHint")),
      field(t("automations.prompt"), prompt, t("automations.promptHint")),
      field(t("automations.model"), model),
      models,
      field(t("automations.preset"), preset),
      presets,
      field(t("automations.permission"), permission),
      fullRow,
      field(t("automations.trigger"), kind),
      schedule,
      files,
      h("label", { class: "form-row inline" }, enabled, h("span", {}, t("automations.enabled"))),
      problem,
      h("div", { class: "form-actions" }, cancel, save),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const chosen =
        kind.value === "schedule"
          ? { kind: "schedule", cron: cron.value.trim(), timeZone: zone.value.trim() || undefined }
          : kind.value === "files"
            ? { kind: "files", paths: globs.value.split(",").map((g) => g.trim()).filter(Boolean) }
            : { kind: "manual" };
      const fields = {
        name: name.value.trim(),
        cwd: cwd.value.trim(),
        prompt: [{ type: "text", text: prompt.value }],
        attach: mentionsOf(prompt.value).map((path) => ({ path })),
        model: model.value.trim() || undefined,
        preset: preset.value.trim() || undefined,
        permission: permission.value,
        confirmFullAccess: permission.value === "danger-full-access" ? confirmFull.checked : undefined,
        trigger: chosen,
        enabled: enabled.checked,
      };
      if (permission.value === "danger-full-access" && !confirmFull.checked) {
        problem.hidden = false;
        problem.textContent = t("automations.confirmFirst");
        return;
      }
      save.disabled = true;
      const r = a ? await this.ctx.calls.update(a.automationId, fields) : await this.ctx.calls.create(fields);
      save.disabled = false;
      if (!r.ok) {
        problem.hidden = false;
        problem.textContent = describeError(r.error);
        return;
      }
      this.ctx.changed();
      await this.showList();
    });
    this.body.append(h("h3", {}, a ? t("automations.editTitle") : t("automations.new")), form);
    name.focus();
  }
}

/** A trigger in words: the cron expression, the file patterns, or "by hand". */
export function triggerText(trigger) {
  if (trigger.kind === "schedule") return t("automations.scheduleText", { cron: trigger.cron, zone: trigger.timeZone ?? "" });
  if (trigger.kind === "files") return t("automations.filesText", { paths: trigger.paths.join(", ") });
  return t("automations.trigger.manual");
}
