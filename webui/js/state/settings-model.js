import { t } from "../i18n/i18n.js";
// Pure helpers behind the Settings page: reading a namespace's JSON Schema, endpoint profile ids
// and credential refs, model lists and their reasoning efforts, and the path operations a card's
// save sends (settings.mutate). No DOM, no I/O.

/** The schema of a property, following a local `$ref` (`#/$defs/X`) and an `anyOf` with null. */
export function propertySchema(root, schema) {
  let s = schema ?? {};
  for (let hops = 0; hops < 8; hops++) {
    if (s.$ref?.startsWith("#/$defs/")) {
      s = { ...(root?.$defs?.[s.$ref.slice(8)] ?? {}), ...withoutKey(s, "$ref") };
      continue;
    }
    const alts = Array.isArray(s.anyOf) ? s.anyOf.filter((a) => a.type !== "null") : null;
    if (alts && alts.length === 1) {
      s = { ...alts[0], ...withoutKey(s, "anyOf") };
      continue;
    }
    return s;
  }
  return s;
}

function withoutKey(obj, key) {
  const { [key]: _drop, ...rest } = obj;
  return rest;
}

/** `{name, schema}` for each property of a namespace schema, in declaration order. */
export function fieldsOf(schema) {
  return Object.entries(schema?.properties ?? {}).map(([name, s]) => ({ name, schema: propertySchema(schema, s), required: (schema.required ?? []).includes(name) }));
}

/** A field's label: its schema title, or its wire name in words (`streamIdleTimeoutMs` → "Stream idle timeout ms"). */
export function fieldLabel(name, schema) {
  if (schema?.title && schema.title.replace(/\s+/g, "").toLowerCase() !== name.toLowerCase()) return schema.title;
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1).replace(/\burl\b/g, "URL");
}

const LIST_ITEMS = { profiles: "settings.issue.endpoint", models: "settings.issue.model" };
const FIELD_WORDS = { streamIdleTimeoutMs: "settings.issue.silenceTimeout", apiKeyEnv: "settings.issue.apiKey", id: "settings.issue.id", name: "provider.name", baseURL: "provider.baseUrl" };

/** A refused setting's place in words: `["profiles", "0", "baseURL"]` → "Endpoint 1 · Base URL". */
export function issueLabel(loc) {
  const words = [];
  for (let i = 0; i < (loc ?? []).length; i++) {
    const part = String(loc[i]);
    const next = loc[i + 1];
    if (Object.hasOwn(LIST_ITEMS, part) && /^\d+$/.test(String(next ?? ""))) {
      words.push(t(LIST_ITEMS[part], { n: Number(next) + 1 }));
      i++;
    } else if (!/^\d+$/.test(part)) words.push(FIELD_WORDS[part] ? t(FIELD_WORDS[part]) : fieldLabel(part));
  }
  return words.join(" · ");
}

/** A `settings-rejected` error's reasons in words, one per issue (none: null). */
export function issueLines(error) {
  const issues = error?.details?.issues ?? [];
  return issues.length ? issues.map((i) => t("settings.issue", { label: issueLabel(i.loc) || t("settings.issue.section"), message: i.msg })) : null;
}

/** Choices of an enum field: `[{value, title, description}]` (from `oneOf` consts when given). */
export function choicesOf(schema) {
  if (Array.isArray(schema?.oneOf) && schema.oneOf.every((o) => "const" in o)) {
    return schema.oneOf.map((o) => ({ value: o.const, title: o.title ?? String(o.const), description: o.description ?? "" }));
  }
  return (schema?.enum ?? []).map((v) => ({ value: v, title: String(v), description: "" }));
}

const RESERVED = new Set(["local", "deepseek"]);

/** A route key from a display name, unique among `taken` (mirrors contract/namespaces.py). */
export function profileIdFor(name, taken) {
  let base = String(name ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 50) || "endpoint";
  if (!/^[a-z0-9]/.test(base)) base = `p-${base}`;
  let candidate = base;
  for (let n = 2; taken.has(candidate) || RESERVED.has(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

/** The credential reference a profile's key is stored under: `my-ollama` → `MY_OLLAMA_API_KEY`. */
export function defaultRefFor(profileId) {
  return `${String(profileId).toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "")}_API_KEY`;
}

/** The key slot an endpoint named `name` gets: `Scripted box` → `SCRIPTED_BOX_API_KEY`, with
 * `_2`, `_3`… when another endpoint holds that one (`takenRefs`). */
export function keyRefFor(name, takenRefs = new Set()) {
  const base = defaultRefFor(profileIdFor(name, new Set())).replace(/_API_KEY$/, "");
  let ref = `${base}_API_KEY`;
  for (let n = 2; takenRefs.has(ref); n++) ref = `${base}_${n}_API_KEY`;
  return ref;
}

/**
 * Where a profile's key should live after a save that names it `name`: `{ref, move}` — `move`
 * is the slot to move a stored key from. A slot the app chose (from the profile's id or an
 * earlier name) follows the name; one the person chose (an environment variable) stays.
 */
export function keySlotAfter(profile, name, takenRefs, cred) {
  const current = profile.apiKeyEnv ?? null;
  const wanted = keyRefFor(name, takenRefs);
  if (!current) return { ref: null, wanted, move: null };
  const chosenByApp = current === defaultRefFor(profile.id) || current === keyRefFor(profile.name ?? "", takenRefs);
  if (!chosenByApp || current === wanted || cred?.source === "env") return { ref: current, wanted, move: null };
  return { ref: wanted, wanted, move: cred?.configured && cred.source === "file" ? current : null };
}

/** Every credential ref the sections name (`apiKeyEnv`), for one `credentials.describe`. */
export function refsOf(namespaces) {
  const refs = new Set();
  for (const n of namespaces ?? []) {
    const v = n.value ?? {};
    if (typeof v.apiKeyEnv === "string") refs.add(v.apiKeyEnv);
    for (const p of v.profiles ?? []) if (typeof p.apiKeyEnv === "string") refs.add(p.apiKeyEnv);
  }
  return [...refs];
}

/** "Configured (environment)" / "Configured (file)" / "Not configured" for a CredentialView. */
export function credentialText(view) {
  if (!view?.configured) return t("provider.key.none");
  if (view.source === "env") return t("provider.key.env");
  if (view.source === "file") return t("provider.key.file");
  return t("provider.key.configured");
}

/** The efforts a model list offers, in first-seen order (the union over its models). */
export function effortsOf(models, modelId = null) {
  const out = [];
  for (const m of models ?? []) {
    if (modelId !== null && m.id !== modelId) continue;
    for (const e of m.reasoningEfforts ?? []) if (!out.includes(e)) out.push(e);
  }
  return out;
}

/** `models` with `id` added once (a discovered entry keeps its name); order kept. */
export function addModel(models, id, name = null) {
  const list = [...(models ?? [])];
  if (!id || list.some((m) => m.id === id)) return list;
  list.push(name && name !== id ? { id, name } : { id });
  return list;
}

export function removeModel(models, id) {
  return (models ?? []).filter((m) => m.id !== id);
}

/**
 * The profile a card's draft saves: trimmed fields, the key's reference (a typed key on a profile
 * without one gets the default ref), `models` only when some were chosen.
 */
export function draftProfile({ id, name, baseURL, apiKeyEnv, models, reasoningEffort, extra }, { keyTyped = false } = {}) {
  const profile = { ...(extra ?? {}), id, name: String(name ?? "").trim() || id, baseURL: String(baseURL ?? "").trim() };
  const ref = apiKeyEnv || (keyTyped ? defaultRefFor(id) : null);
  if (ref) profile.apiKeyEnv = ref;
  else delete profile.apiKeyEnv;
  if (models && models.length) profile.models = models;
  else delete profile.models;
  if (reasoningEffort) profile.reasoningEffort = reasoningEffort;
  else delete profile.reasoningEffort;
  return profile;
}

/** settings.mutate ops that put `profile` at `index` (an append when index is the length). */
export function saveProfileOps(index, profile) {
  return [{ op: "set", path: ["profiles", String(index)], value: profile }];
}

export function removeProfileOps(index) {
  return [{ op: "unset", path: ["profiles", String(index)] }];
}

/** What a namespace resolves to without the user's layer: schema defaults under the base. */
export function fallbackOf(view) {
  const out = {};
  for (const { name, schema } of fieldsOf(view?.schema)) if ("default" in schema) out[name] = schema.default;
  return { ...out, ...(view?.base ?? {}) };
}

/**
 * settings.mutate ops for the top-level fields a card edits: a value equal to what the section
 * falls back to (or empty) is unset, so the user layer holds only real choices.
 */
export function fieldOps(values, fallback) {
  const ops = [];
  for (const [name, value] of Object.entries(values)) {
    const empty = value === null || value === undefined || value === "";
    if (empty || sameJson(value, fallback?.[name])) ops.push({ op: "unset", path: [name] });
    else ops.push({ op: "set", path: [name], value });
  }
  return ops;
}

export function sameJson(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
