// Pure helpers of the model library (docs/decisions.md, "Offline agent"): sizes people read,
// what a download row says, and the endpoint profile a server found on this machine becomes.

import { profileIdFor } from "./settings-model.js";

/** 986000000 → "986 MB" (decimal units, as download sites list them). */
export function formatBytes(n) {
  if (n == null || !Number.isFinite(n)) return "?";
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  return i === 0 ? `${v} bytes` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** The line under a download's progress bar. */
export function downloadLine(d) {
  const got = formatBytes(d.receivedBytes);
  const of = d.totalBytes != null ? ` of ${formatBytes(d.totalBytes)}` : "";
  const pct = d.totalBytes ? ` (${Math.floor((100 * d.receivedBytes) / d.totalBytes)} %)` : "";
  switch (d.state) {
    case "running":
      return `Downloading… ${got}${of}${pct}`;
    case "paused":
      return `Paused at ${got}${of}${pct}`;
    case "verifying":
      return "Checking the file…";
    case "done":
      return "Installed.";
    case "failed":
      return `Failed: ${d.error ?? "unknown error"}`;
    case "cancelled":
      return "Cancelled.";
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
