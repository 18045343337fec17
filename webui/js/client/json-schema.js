// A small JSON Schema (2020-12) validator for the schemas in the generated contract module
// (webui/js/contract.gen.js). It implements exactly the keywords contract/jsgen.py lets through —
// the generator refuses any other, and so does compile() here — so no check is ever skipped
// silently. No DOM: runs in Node.
//
// `validator(name)` gives `(value, path = "$") => null | "<path>: <why>"` (the first problem).
// Inside, a compiled check returns null or the problem relative to its value (".x[2]: why" or
// ": why"): paths are only built for a value that fails, so a frame that fits costs no strings.
// Extra object fields: `additionalProperties: false` is enforced only with {extra: "forbid"}; the
// client reads with the default {extra: "ignore"} (tolerant reader: a field it does not know is
// passed over, the fields it does know are still checked).

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const own = (o, k) => Object.hasOwn(o, k) && o[k] !== undefined;
const plain = (o, k) => o[k] !== undefined;
/** A presence test for field `name`: a plain read (fast) unless the name is inherited by every object. */
const presence = (name) => (name in Object.prototype ? own : plain);

const TYPES = {
  string: (v) => typeof v === "string",
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
  object: isObj,
  array: Array.isArray,
};

const TAG_TYPES = new Set(["string", "boolean", "number"]);

function kind(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (Number.isInteger(v)) return "integer";
  return typeof v;
}

function same(a, b) {
  if (a === b) return true;
  return typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b);
}

/** Length in code points, as JSON Schema (and Python) count it. */
function length(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const DEF_REF = "#/$defs/";
const ACCEPT = () => null;

/** Keywords checked first, so a wrong type is reported as such rather than as a missing field. */
const FIRST = ["type", "const", "enum", "discriminator"];

export class SchemaSet {
  /**
   * @param {Record<string, object>} defs the `$defs` table every `$ref` points into
   * @param {{extra?: "ignore"|"forbid"}} [opts]
   */
  constructor(defs, { extra = "ignore" } = {}) {
    if (extra !== "ignore" && extra !== "forbid") throw new Error(`extra must be "ignore" or "forbid", not ${extra}`);
    this.defs = defs;
    this.forbidExtra = extra === "forbid";
    this.checks = new Map();
    this.validators = new Map();
  }

  /** The validator of the definition `name`: `(value, path = "$") => null | "<path>: <why>"`. */
  validator(name) {
    let v = this.validators.get(name);
    if (!v) {
      const check = this.check(name);
      v = (value, path = "$") => {
        const problem = check(value);
        return problem === null ? null : path + problem;
      };
      this.validators.set(name, v);
    }
    return v;
  }

  /** The relative check of the definition `name`, compiled once on first use (so cycles work). */
  check(name) {
    let c = this.checks.get(name);
    if (!c) {
      if (!Object.hasOwn(this.defs, name)) throw new Error(`no schema named ${JSON.stringify(name)}`);
      let inner = null;
      c = (value) => (inner ??= this.compile(this.defs[name]))(value);
      this.checks.set(name, c);
    }
    return c;
  }

  /** Compile a schema object (or boolean schema) into a relative check. */
  compile(schema) {
    if (schema === true) return ACCEPT;
    if (schema === false) return () => ": no value is allowed here";
    const keys = Object.keys(schema).sort((a, b) => rank(a) - rank(b));
    const checks = [];
    for (const key of keys) {
      const make = KEYWORDS[key];
      if (!make) throw new Error(`json-schema.js: keyword ${JSON.stringify(key)} is not implemented`);
      const check = make.call(this, schema[key], schema);
      if (check) checks.push(check);
    }
    return all(checks);
  }

  ref(ref) {
    if (typeof ref !== "string" || !ref.startsWith(DEF_REF)) throw new Error(`json-schema.js: unsupported $ref ${ref}`);
    return this.check(ref.slice(DEF_REF.length));
  }
}

/** One check running `checks` in order; the first problem wins. */
function all(checks) {
  if (checks.length === 0) return ACCEPT;
  if (checks.length === 1) return checks[0];
  return (v) => {
    for (const check of checks) {
      const problem = check(v);
      if (problem !== null) return problem;
    }
    return null;
  };
}

function rank(key) {
  const i = FIRST.indexOf(key);
  return i < 0 ? FIRST.length : i;
}

/** keyword → (argument, whole schema) → check | null; `this` is the SchemaSet. */
const KEYWORDS = {
  $ref(ref) {
    return this.ref(ref);
  },
  type(type) {
    const names = Array.isArray(type) ? type : [type];
    for (const t of names) if (!TYPES[t]) throw new Error(`json-schema.js: unknown type ${t}`);
    const want = names.join(" or ");
    const fail = (v) => `: expected ${want}, got ${kind(v)}`;
    if (names.length === 1) {
      const test = TYPES[names[0]];
      return (v) => (test(v) ? null : fail(v));
    }
    const tests = names.map((t) => TYPES[t]);
    return (v) => (tests.some((t) => t(v)) ? null : fail(v));
  },
  const(value) {
    return (v) => (same(v, value) ? null : `: expected ${JSON.stringify(value)}`);
  },
  enum(values) {
    const want = values.map((x) => JSON.stringify(x)).join(", ");
    return (v) => (values.some((x) => same(v, x)) ? null : `: expected one of ${want}`);
  },
  minLength(n) {
    return (v) => (typeof v !== "string" || v.length >= 2 * n || length(v) >= n ? null : `: shorter than ${n}`);
  },
  maxLength(n) {
    return (v) => (typeof v !== "string" || v.length <= n || length(v) <= n ? null : `: longer than ${n}`);
  },
  minimum(n) {
    return (v) => (typeof v !== "number" || v >= n ? null : `: less than ${n}`);
  },
  maximum(n) {
    return (v) => (typeof v !== "number" || v <= n ? null : `: more than ${n}`);
  },
  exclusiveMinimum(n) {
    return (v) => (typeof v !== "number" || v > n ? null : `: not more than ${n}`);
  },
  exclusiveMaximum(n) {
    return (v) => (typeof v !== "number" || v < n ? null : `: not less than ${n}`);
  },
  pattern(source) {
    const re = new RegExp(source, "u"); // the contract's patterns are plain character classes
    return (v) => (typeof v !== "string" || re.test(v) ? null : `: does not match ${source}`);
  },
  maxProperties(n) {
    return (v) => (!isObj(v) || Object.keys(v).length <= n ? null : `: more than ${n} fields`);
  },
  minItems(n) {
    return (v) => (!Array.isArray(v) || v.length >= n ? null : `: fewer than ${n} items`);
  },
  maxItems(n) {
    return (v) => (!Array.isArray(v) || v.length <= n ? null : `: more than ${n} items`);
  },
  required(names) {
    const fields = names.map((name) => [name, presence(name)]);
    return (v) => {
      if (!isObj(v)) return null;
      for (const [name, has] of fields) if (!has(v, name)) return `.${name}: missing`;
      return null;
    };
  },
  properties(props) {
    const checks = new Map(Object.entries(props).map(([name, sub]) => [name, this.compile(sub)]));
    return (v) => {
      if (!isObj(v)) return null;
      for (const name in v) {
        const check = checks.get(name);
        if (check === undefined || !Object.hasOwn(v, name)) continue;
        const value = v[name];
        if (value === undefined) continue;
        const problem = check(value);
        if (problem !== null) return `.${name}${problem}`;
      }
      return null;
    };
  },
  additionalProperties(sub, schema) {
    if (sub === true || (sub === false && !this.forbidExtra)) return null;
    const known = new Set(Object.keys(schema.properties ?? {}));
    const check = this.compile(sub);
    return (v) => {
      if (!isObj(v)) return null;
      for (const name of Object.keys(v)) {
        if (known.has(name)) continue;
        if (sub === false) return `.${name}: unexpected field`;
        const problem = check(v[name]);
        if (problem !== null) return `.${name}${problem}`;
      }
      return null;
    };
  },
  prefixItems(subs) {
    const checks = subs.map((s) => this.compile(s));
    return (v) => {
      if (!Array.isArray(v)) return null;
      for (let i = 0; i < checks.length && i < v.length; i++) {
        const problem = checks[i](v[i]);
        if (problem !== null) return `[${i}]${problem}`;
      }
      return null;
    };
  },
  items(sub, schema) {
    const check = this.compile(sub);
    const from = schema.prefixItems?.length ?? 0;
    return (v) => {
      if (!Array.isArray(v)) return null;
      for (let i = from; i < v.length; i++) {
        const problem = check(v[i]);
        if (problem !== null) return `[${i}]${problem}`;
      }
      return null;
    };
  },
  allOf(subs) {
    return all(subs.map((s) => this.compile(s)));
  },
  anyOf(subs) {
    const checks = subs.map((s) => this.compile(s));
    return (v) => {
      let first = null;
      for (const check of checks) {
        const problem = check(v);
        if (problem === null) return null;
        first ??= problem;
      }
      return first;
    };
  },
  oneOf(subs, schema) {
    if (schema.discriminator) return null; // the discriminator picks the one branch
    const checks = subs.map((s) => this.compile(s));
    return (v) => {
      const fits = checks.filter((check) => check(v) === null).length;
      return fits === 1 ? null : `: fits ${fits} of the ${checks.length} alternatives, not exactly one`;
    };
  },
  /** OpenAPI's discriminator (pydantic emits it with oneOf): the tag picks the branch. */
  discriminator({ propertyName, mapping }) {
    const branches = new Map(Object.entries(mapping).map(([tag, ref]) => [tag, this.ref(ref)]));
    const has = presence(propertyName);
    return (v) => {
      if (!isObj(v)) return `: expected object, got ${kind(v)}`;
      if (!has(v, propertyName)) return `.${propertyName}: missing`;
      const tag = v[propertyName];
      const check = TAG_TYPES.has(typeof tag) ? branches.get(String(tag)) : undefined;
      return check ? check(v) : `.${propertyName}: unknown ${JSON.stringify(tag)}`;
    };
  },
};
