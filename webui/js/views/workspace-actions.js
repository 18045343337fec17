// What the user does with folders and sessions beyond the conversation: open a folder (native
// dialog or in-page browser), new session in a workspace, archive / unarchive, delete (with
// Export first offered), reveal a folder or open a file through the host, reorder, unregister.

import { h } from "./dom.js";
import { confirm } from "./confirm.js";
import { FolderPicker } from "./folder-picker.js";
import { displayTitle } from "../state/session-list.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

export class WorkspaceActions {
  /** ctx: {host, manager, workspaces, toast(msg), open(sid), newSession(wid), exportSession(sid), canOpenPath()} */
  constructor(ctx) {
    this.ctx = ctx;
    this.picker = new FolderPicker({ host: ctx.host, toast: ctx.toast });
  }

  /** "Open folder…": choose a folder, register it, start (or reuse) its blank session there. */
  async openFolder() {
    const path = await this.picker.choose();
    if (!path) return null;
    return this.openPath(path);
  }

  /** Register `path` (or adopt its registration) and show a session there. */
  async openPath(path) {
    const r = await this.ctx.host.createWorkspace(path);
    if (!r.ok) {
      this.ctx.toast(t("import.openFailed", { path, reason: describeError(r.error) }));
      return null;
    }
    this.ctx.workspaces.upsert(r.value.workspace);
    return this.ctx.newSession(r.value.workspace.workspaceId);
  }

  async archive(sessionId) {
    const r = await this.ctx.host.archive(sessionId);
    if (!r.ok) return this.ctx.toast(describeError(r.error));
    this.ctx.workspaces.setArchived(r.value.archivedSessionIds);
    const title = displayTitle(this.ctx.manager.summaries.get(sessionId));
    const undo = { label: t("ws.undo"), testid: "toast-undo-archive", run: () => this.unarchive(sessionId) };
    this.ctx.toast(t("ws.archived", { title }), "info", undo);
  }

  async unarchive(sessionId) {
    const r = await this.ctx.host.unarchive(sessionId);
    if (!r.ok) return this.ctx.toast(describeError(r.error));
    this.ctx.workspaces.setArchived(r.value.archivedSessionIds);
  }

  /** Delete for good, after a confirmation that offers to export the session first. */
  async deleteSession(sessionId) {
    const s = this.ctx.manager.summaries.get(sessionId);
    const title = displayTitle(s);
    const w = s?.worktree?.owned ? s.worktree : null; // its worktree goes with it (docs/decisions.md, "Worktree sessions")
    const dropBranch = w ? h("input", { type: "checkbox", id: "delete-branch", testid: "delete-branch" }) : null;
    const choice = await confirm({
      testid: "delete-dialog",
      title: t("ws.deleteTitle", { title }),
      body: [
        w ? t("ws.deleteBodyWorktree", { path: w.path, branch: w.branch }) : t("ws.deleteBody"),
        w ? h("p", { class: "check-row" }, dropBranch, h("label", { for: "delete-branch" }, t("ws.deleteBranch", { branch: w.branch }))) : null,
        h("p", { class: "hint" }, t("ws.deleteHint")),
      ].filter(Boolean),
      actions: [
        { label: t("ws.exportFirst"), value: "export", testid: "delete-export", keepOpen: () => this.ctx.exportSession(sessionId) },
        { label: t("ws.delete"), value: "delete", tone: "danger", testid: "delete-confirm" },
      ],
    });
    if (choice !== "delete") return false;
    if (dropBranch?.checked) {
      const gone = await this.ctx.worktrees.remove(sessionId, false, true);
      if (!gone.ok) {
        this.ctx.toast(describeError(gone.error));
        return false;
      }
    }
    const r = await this.ctx.host.deleteSession(sessionId);
    if (!r.ok) {
      this.ctx.toast(r.error.code === "agent-busy" ? t("ws.stopFirst") : describeError(r.error));
      return false;
    }
    return true;
  }

  /** Unregister a workspace: its sessions move to Ungrouped; the folder stays. */
  async removeWorkspace(workspace) {
    const choice = await confirm({
      testid: "remove-workspace-dialog",
      title: t("ws.removeTitle", { title: workspace.title }),
      body: [t("ws.removeBody", { path: workspace.path })],
      actions: [{ label: t("chips.remove"), value: "remove", tone: "primary", testid: "remove-workspace-confirm" }],
    });
    if (choice !== "remove") return;
    const r = await this.ctx.host.deleteWorkspace(workspace.workspaceId);
    if (!r.ok) this.ctx.toast(describeError(r.error));
  }

  async moveSession(workspaceId, sessionId, beforeSessionId) {
    const payload = beforeSessionId ? { workspaceId, sessionId, beforeSessionId } : { workspaceId, sessionId };
    const r = await this.ctx.host.insertSessionBefore(payload);
    if (!r.ok) return this.ctx.toast(describeError(r.error));
    this.ctx.workspaces.upsert(r.value.workspace);
  }

  /** Hand a folder or file to the OS (file manager, default app); with `editor`, a file to the
   * person's editor when Settings names one (ui-appearance.editor). */
  async reveal(path, { editor = false } = {}) {
    const r = await this.ctx.host.openPath(path, editor);
    if (!r.ok) this.ctx.toast(t("import.openFailed", { path, reason: describeError(r.error) }));
  }
}
