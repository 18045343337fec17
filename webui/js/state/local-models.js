// Pure helpers of the model library (docs/decisions.md, "Offline agent"): sizes people read,
// what a download row says, and the endpoint profile a server found on this machine becomes.

import { profileIdFor } from "./settings-model.js";
import { number, t } from "../i18n/i18n.js";

/** 986000000 → "986 MB" (decimal units, as download sites list them). */
export function formatBytes(n) {
  if (n == null || !Number.isFinite(n)) return "?";
  const units = ["", "KB", "MB", "GB", "TB"];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  if (i === 0) return t("size.bytes", { count: v });
  const digits = v >= 100 ? 0 : 1;
  return `${number(v, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units[i]}`;
}

/** The line under a download's progress bar. */
export function downloadLine(d) {
  const got = formatBytes(d.receivedBytes);
  const where = d.totalBytes ? t("download.progress", { got, total: formatBytes(d.totalBytes), percent: Math.floor((100 * d.receivedBytes) / d.totalBytes) }) : got;
  switch (d.state) {
    case "running":
      return t("download.running", { where });
    case "paused":
      return t("download.paused", { where });
    case "verifying":
      return t("download.verifying");
    case "done":
      return t("download.done");
    case "failed":
      return t("download.failed", { reason: d.error ?? t("download.unknownError") });
    case "cancelled":
      return t("error.cancelled");
    default:
      return d.state;
  }
}

/** A download's latest state from a `host/model-download` frame (the frame wins). */
export function mergeDownload(list, frame) {
  const next = { downloadId: frame.downloadId, name: frame.name ?? frame.downloadId, state: frame.state, receivedBytes: frame.receivedBytes, totalBytes: frame.totalBytes ?? null, error: frame.error ?? null, modelId: frame.modelId ?? null };
  const i = list.findIndex((d) => d.downloadId === frame.downloadId);
  if (frame.state === "cancelled") return list.filter((d) => d.downloadId !== frame.downloadId);
  if (i < 0) return [...list, next];
  const out = list.slice();
  out[i] = { ...out[i], ...next, name: frame.name ?? out[i].name };
  return out;
}

/** What `llm.downloadModel` takes for what a person typed: a URL as is, a path as file://. */
export function sourceFor(text) {
  const t = String(text ?? "").trim();
  if (!t) return null;
  if (/^(https?|file):\/\//i.test(t)) return t;
  if (t.startsWith("/")) return `file://${t.split("/").map(encodeURIComponent).join("/")}`;
  return null;
}

/** The endpoint profile for a server found on this machine (its id free among `profiles`). */
export function profileFor(server, profiles) {
  const taken = new Set((profiles ?? []).map((p) => p.id));
  return { id: profileIdFor(server.kind === "llama.cpp" ? "llama-cpp" : server.kind, taken), name: server.name, baseURL: server.baseURL };
}
