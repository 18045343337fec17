// Importing a session archive (the .zip Export or `harnessdesk export` writes) into a workspace:
// the file is read as base64 and sent as `session.import` (docs/decisions.md, "Import in the
// app"). Every client call of the import lives here; no DOM beyond the File it is given.

import { number, t } from "../i18n/i18n.js";


export const MAX_IMPORT_BYTES = 20 * 1024 * 1024; // contract/sessions.py MAX_IMPORT_BYTES
const ZIP_TYPES = new Set(["application/zip", "application/x-zip-compressed", "application/x-zip"]);

/** Whether a dropped or chosen file is meant as an archive (its name or its type says zip). */
export function isArchive(file) {
  return /\.zip$/i.test(file?.name ?? "") || ZIP_TYPES.has(file?.type ?? "");
}

/** The one line that refuses a file before anything is sent, or null when it may go. */
export function refusal(file) {
  const name = file?.name || t("import.theFile");
  if (!isArchive(file)) return t("import.notArchive", { name });
  if (file.size === 0) return t("import.empty", { name });
  if (file.size > MAX_IMPORT_BYTES) {
    return t("import.tooLarge", { name, size: megabytes(file.size), max: megabytes(MAX_IMPORT_BYTES) });
  }
  return null;
}

export function megabytes(size) {
  return `${number(size / (1024 * 1024), { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** A File's bytes as base64 (without the data: URL prefix). */
export function fileBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

export class ImportState {
  constructor({ client }) {
    this.client = client;
  }

  call(method, payload) {
    return this.client.call(method, payload);
  }

  /** Register `path` as a workspace (or adopt it): {ok, value: WorkspaceView} | {ok: false, error}. */
  async workspaceFor(path) {
    const r = await this.call("workspace.create", { path });
    return r.ok ? { ok: true, value: r.value.workspace } : r;
  }

  /** Import `file` into the workspace: {ok, value: ImportValue} | {ok: false, error}. */
  async importFile(file, workspaceId) {
    const early = refusal(file);
    if (early) return { ok: false, error: { code: "archive-invalid", message: early } };
    let data;
    try {
      data = await fileBase64(file);
    } catch (e) {
      return { ok: false, error: { code: "archive-invalid", message: t("import.unreadable", { name: file.name, reason: e.message }) } };
    }
    return this.call("session.import", { data, workspaceId, fileName: (file.name || "archive.zip").slice(0, 300) });
  }
}
