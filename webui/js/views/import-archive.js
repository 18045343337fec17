// Import in the app: the sidebar's "Import session…" button and a session archive dropped
// anywhere on the window. The archive goes into the current workspace (the open session's, else
// the one used last) or a folder the person chooses; the imported session then opens under its
// workspace (docs/decisions.md, "Import in the app"). Client calls: state/importer.js.

import { h, tNodes } from "./dom.js";
import { confirm } from "./confirm.js";
import { isArchive, refusal } from "../state/importer.js";
import { recentWorkspaces } from "../state/workspaces.js";
import { shortenPath } from "../state/session-list.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

export class ImportArchive {
  /** ctx: {state (ImportState), manager, workspaces, picker (FolderPicker), toast(msg, tone), open(sid), home()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.state = ctx.state;
    this.busy = false;
    this.input = h("input", { type: "file", accept: ".zip,application/zip", hidden: true, testid: "import-file" });
    this.input.addEventListener("change", () => {
      const file = this.input.files?.[0];
      this.input.value = "";
      if (file) this.importFile(file);
    });
    document.body.append(this.input);
    this.installDrop();
  }

  /** The button: the system's file chooser, then the same path as a drop. */
  choose() {
    this.input.click();
  }

  /** A file dragged over the window shows where it goes; an archive dropped imports. The
   * composer keeps image drops (it leaves archives to this handler). */
  installDrop() {
    const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
    let depth = 0;
    const hint = (on) => document.body.classList.toggle("import-dragging", on);
    document.addEventListener("dragenter", (e) => {
      if (!hasFiles(e)) return;
      depth++;
      hint(true);
    });
    document.addEventListener("dragleave", (e) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (!depth) hint(false);
    });
    document.addEventListener("dragover", (e) => {
      if (hasFiles(e)) e.preventDefault(); // never let the page navigate to the file
    });
    document.addEventListener("drop", (e) => {
      depth = 0;
      hint(false);
      if (!hasFiles(e) || e.defaultPrevented) return; // the composer took its images
      e.preventDefault();
      const files = [...(e.dataTransfer?.files ?? [])];
      const archive = files.find(isArchive);
      if (archive) this.importFile(archive);
      else if (files.length) this.ctx.toast(refusal(files[0]));
    });
  }

  /** The workspace an import goes to without asking: the open session's, else the last used. */
  currentWorkspace() {
    const { manager, workspaces } = this.ctx;
    const open = manager.activeId ? workspaces.of(manager.activeId) : null;
    return open ?? recentWorkspaces(workspaces.items, manager.summaries.values(), 1)[0] ?? null;
  }

  async importFile(file) {
    const early = refusal(file);
    if (early) return this.ctx.toast(early);
    if (this.busy) return this.ctx.toast(t("import.busy"));
    this.busy = true;
    try {
      const workspace = await this.target(file);
      if (!workspace) return;
      const r = await this.state.importFile(file, workspace.workspaceId);
      if (!r.ok) return this.ctx.toast(t("import.failed", { name: file.name, reason: r.error.message || describeError(r.error) }));
      // `host/session-added` carries no title: read the list again so the sidebar and the header
      // show the imported title as stored, not "Untitled session"
      await this.ctx.manager.refreshList().catch(() => false);
      this.ctx.open(r.value.sessionId);
      const more = r.value.sessionIds.length - 1;
      this.ctx.toast(more > 0 ? t("import.doneWith", { name: file.name, count: more, workspace: workspace.title }) : t("import.done", { name: file.name, workspace: workspace.title }), "info");
    } finally {
      this.busy = false;
    }
  }

  /** Ask where the archive goes: the current workspace (Import) or a folder chosen now. */
  async target(file) {
    const here = this.currentWorkspace();
    if (here) {
      const where = shortenPath(here.path, this.ctx.home());
      const choice = await confirm({
        testid: "import-dialog",
        title: t("import.title", { name: file.name }),
        body: [
          h("p", {}, tNodes("import.into", { workspace: h("strong", { testid: "import-target", translate: "no" }, here.title), path: where })),
          h("p", { class: "hint" }, t("import.hint")),
        ],
        actions: [
          { label: t("import.chooseFolder"), value: "choose", testid: "import-choose" },
          { label: t("import.import"), value: "here", tone: "primary", testid: "import-confirm" },
        ],
      });
      if (choice === "here") return here;
      if (choice !== "choose") return null;
    }
    const path = await this.ctx.picker.choose();
    if (!path) return null;
    const r = await this.state.workspaceFor(path);
    if (!r.ok) {
      this.ctx.toast(t("import.openFailed", { path, reason: describeError(r.error) }));
      return null;
    }
    this.ctx.workspaces.upsert(r.value);
    return r.value;
  }
}
