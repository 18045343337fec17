// Form fields built from a namespace's JSON Schema (settings.describe): scalars only — text,
// numbers, booleans and enums (as radio choices when they carry descriptions). Each field reads
// and writes one top-level property; nested objects and lists are left to dedicated cards.

import { h } from "./dom.js";
import { choicesOf, fieldLabel, fieldsOf } from "../state/settings-model.js";
import { tOr } from "../i18n/i18n.js";

// The host describes its settings in English (contract/namespaces.py); the page shows the
// catalogue's words for them: `setting.<ns>.<field>` (and `.hint`), `setting.<ns>.<field>.<choice>`
// (and `.hint`). tests/test_i18n.py fails when an exposed field has no message.

/** A choice's title in the page's language. */
export function choiceTitle(ns, name, c) {
  return tOr(`setting.${ns}.${name}.${c.value}`, c.title);
}

/** A choice's description in the page's language. */
export function choiceHint(ns, name, c) {
  return c.description ? tOr(`setting.${ns}.${name}.${c.value}.hint`, c.description) : "";
}

let seq = 0;

/** The scalar fields of `view` as `{el, name, read()}`; `only` limits and orders them. */
export function scalarFields(view, only = null) {
  const fields = fieldsOf(view.schema).filter((f) => isScalar(f.schema));
  const picked = only ? only.map((n) => fields.find((f) => f.name === n)).filter(Boolean) : fields;
  return picked.map((f) => scalarField(view.ns, f.name, f.schema, view.value?.[f.name]));
}

export function isScalar(schema) {
  return ["string", "integer", "number", "boolean"].includes(schema?.type) || choicesOf(schema).length > 0;
}

export function scalarField(ns, name, schema, value) {
  const id = `set-${ns}-${name}-${++seq}`;
  const label = tOr(`setting.${ns}.${name}`, fieldLabel(name, schema));
  const hint = schema.description ? h("p", { class: "hint", id: `${id}-hint` }, tOr(`setting.${ns}.${name}.hint`, schema.description)) : null;
  const described = hint ? `${id}-hint` : undefined;
  const choices = choicesOf(schema);
  const testid = `setting-${ns}-${name}`;
  if (choices.length && choices.some((c) => c.description)) {
    const inputs = choices.map((c) => h("input", { type: "radio", name: id, value: c.value, checked: c.value === value, testid: `${testid}-${c.value}` }));
    const el = h(
      "fieldset",
      { class: "field choice-field", testid },
      h("legend", {}, label),
      hint,
      choices.map((c, i) => h("label", { class: "choice" }, inputs[i], h("span", { class: "choice-text" }, h("strong", {}, choiceTitle(ns, name, c)), c.description ? h("span", { class: "hint" }, choiceHint(ns, name, c)) : null))),
    );
    return { el, name, read: () => inputs.find((i) => i.checked)?.value ?? value };
  }
  if (choices.length) {
    const select = h("select", { id, testid, "aria-describedby": described }, choices.map((c) => h("option", { value: c.value }, choiceTitle(ns, name, c))));
    select.value = value ?? choices[0].value;
    return { el: h("div", { class: "field" }, h("label", { for: id }, label), select, hint), name, read: () => select.value };
  }
  if (schema.type === "boolean") {
    const box = h("input", { id, type: "checkbox", testid, checked: !!value, "aria-describedby": described });
    return { el: h("div", { class: "field field-check" }, box, h("label", { for: id }, label), hint), name, read: () => box.checked };
  }
  const numeric = schema.type === "integer" || schema.type === "number";
  const input = h("input", {
    id,
    testid,
    type: numeric ? "number" : "text",
    min: schema.minimum,
    max: schema.maximum,
    step: schema.type === "integer" ? "1" : undefined,
    placeholder: schema.default !== undefined && schema.default !== null ? String(schema.default) : "",
    translate: "no", // the default value as placeholder, not words
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": described,
  });
  input.value = value === undefined || value === null ? "" : String(value);
  const read = () => {
    const raw = input.value.trim();
    if (raw === "") return null;
    return numeric ? Number(raw) : raw;
  };
  return { el: h("div", { class: "field" }, h("label", { for: id }, label), input, hint), name, read };
}
