/**
 * Turning JavaScript values into front-matter YAML and back, the same way everywhere.
 *
 * Reading uses YAML 1.2's core schema: `2026-03-30 09:00:00`, `yes` and `0o17`-style oddities
 * of YAML 1.1 stay strings, and explicit 1.1 tags (`!!binary`, `!!timestamp`) are not
 * resolved, so front-matter values are only ever strings, numbers, booleans, null, lists and
 * mappings. Writing keeps Obsidian's look: plain scalars where YAML allows them (ISO dates
 * unquoted), lists of scalars in flow style (`[visa, travel]`), no line folding. Strings a
 * YAML 1.1 reader would turn into booleans or sexagesimal numbers (`yes`, `off`, `1:30`) are
 * quoted, because other tools in a user's vault still read front matter as YAML 1.1.
 */
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  Scalar,
  visit,
  YAMLMap,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
  type ToStringOptions,
} from 'yaml';

export const YAML_READ_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: true,
  resolveKnownTags: false,
  prettyErrors: true,
  // yaml would otherwise call process.emitWarning, which shared code must not reach.
  logLevel: 'error',
};

const YAML_WRITE_OPTIONS: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  flowCollectionPadding: false,
  indent: 2,
  indentSeq: true,
};

/** Aliases may repeat a node at most this often when read, which stops "billion laughs" files. */
export const MAX_ALIAS_COUNT = 100;

const YAML_1_1_AMBIGUOUS =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$/;

/** A value that cannot be written as front matter; `field` is the top-level key it was given for. */
export class FrontMatterValueError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'FrontMatterValueError';
  }
}

/**
 * The JSON-like value YAML will hold for `value`, or a FrontMatterValueError naming `field`.
 * Dates become ISO strings; `undefined` inside a list becomes null and inside a mapping is
 * dropped (as JSON does); functions, symbols, bigints, invalid dates, cycles and class
 * instances other than Date are refused.
 */
export function normalizeFieldValue(field: string, value: unknown): unknown {
  return normalize(field, value, new Set());
}

function normalize(field: string, value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw new FrontMatterValueError(field, `field "${field}": invalid Date`);
    }
    return value.toISOString();
  }
  if (typeof value !== 'object') {
    throw new FrontMatterValueError(
      field,
      `field "${field}": a ${typeof value} cannot be written as YAML`,
    );
  }
  if (seen.has(value)) {
    throw new FrontMatterValueError(field, `field "${field}": the value contains a cycle`);
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item: unknown) =>
        item === undefined ? null : normalize(field, item, seen),
      );
    }
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new FrontMatterValueError(
        field,
        `field "${field}": only plain objects, lists, strings, numbers, booleans and null can be written`,
      );
    }
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      Object.defineProperty(result, key, {
        value: normalize(field, item, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  } finally {
    seen.delete(value);
  }
}

/** A key Cairn agrees to write: non-empty, one line, no control characters. */
export function checkFieldName(field: string): string | null {
  if (field.length === 0) return 'a front-matter key cannot be empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(field)) {
    return `front-matter key ${JSON.stringify(field)} contains a line break or control character`;
  }
  if (field.trim() !== field) {
    return `front-matter key ${JSON.stringify(field)} starts or ends with spaces`;
  }
  return null;
}

export interface FieldStyle {
  /** Write a list of scalars as a block list (`- a` lines) instead of `[a, b]`. */
  blockList?: boolean;
  /** Quote a single-line string value this way (keeps a user's quoting when Cairn rewrites it). */
  quote?: typeof Scalar.QUOTE_DOUBLE | typeof Scalar.QUOTE_SINGLE;
}

/**
 * YAML text (lines ending in '\n') for the given top-level fields, in order. Values must
 * already be normalized. An empty field list gives ''.
 */
export function serializeFields(
  fields: ReadonlyArray<readonly [string, unknown]>,
  styles: ReadonlyMap<string, FieldStyle> = new Map(),
): string {
  if (fields.length === 0) return '';
  const doc = new Document(null, YAML_READ_OPTIONS);
  const map = new YAMLMap();
  for (const [field, value] of fields) {
    const pair = doc.createPair(field, value);
    const style = styles.get(field);
    if (
      isSeq(pair.value) &&
      !style?.blockList &&
      pair.value.items.every((item) => isScalar(item))
    ) {
      pair.value.flow = true;
    }
    // Obsidian writes an empty property as `key:` with nothing after it.
    if (isScalar(pair.value) && pair.value.value === null) pair.value.source = '';
    if (
      style?.quote !== undefined &&
      isScalar(pair.value) &&
      typeof pair.value.value === 'string' &&
      !pair.value.value.includes('\n')
    ) {
      pair.value.type = style.quote;
    }
    map.add(pair);
  }
  doc.contents = map;
  quoteYaml11Ambiguities(doc);
  const text = doc.toString(YAML_WRITE_OPTIONS);
  if (readsBackAsFields(text, fields)) return text;
  // yaml's block scalars lose whitespace-only lines (`'  \n'` comes back as `'\n'`):
  // double quotes with escapes are exact for every string.
  visit(doc, {
    Scalar(key, node) {
      if (key !== 'key' && typeof node.value === 'string') node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  const quoted = doc.toString(YAML_WRITE_OPTIONS);
  if (readsBackAsFields(quoted, fields)) return quoted;
  throw new Error(
    `front matter for ${fields.map(([field]) => field).join(', ')} does not read back as written`,
  );
}

function readsBackAsFields(
  text: string,
  fields: ReadonlyArray<readonly [string, unknown]>,
): boolean {
  const doc = parseDocument(text, YAML_READ_OPTIONS);
  if (
    doc.errors.length > 0 ||
    !isMap(doc.contents) ||
    doc.contents.items.length !== fields.length
  ) {
    return false;
  }
  const data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Record<string, unknown>;
  return fields.every(
    ([field, value]) =>
      Object.prototype.hasOwnProperty.call(data, field) && sameYamlValue(data[field], value),
  );
}

/** Re-serializes a whole parsed document (the fallback when surgical edits are impossible). */
export function serializeDocument(doc: Document): string {
  if (isMap(doc.contents)) doc.contents.flow = false;
  for (const pair of isMap(doc.contents) ? doc.contents.items : []) {
    if (isSeq(pair.value) && pair.value.items.every((item) => isScalar(item))) {
      pair.value.flow = true;
    }
  }
  quoteYaml11Ambiguities(doc);
  const text = doc.toString(YAML_WRITE_OPTIONS);
  return text === '{}\n' || text === 'null\n' ? '' : text;
}

function quoteYaml11Ambiguities(doc: Document): void {
  visit(doc, {
    Scalar(key, node) {
      if (
        key !== 'key' &&
        typeof node.value === 'string' &&
        node.type !== Scalar.QUOTE_SINGLE &&
        YAML_1_1_AMBIGUOUS.test(node.value)
      ) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
}

/** Structural equality of JSON-like values as YAML reads them (NaN equals NaN). */
export function sameYamlValue(left: unknown, right: unknown): boolean {
  if (Object.is(left, right) || left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) {
      return false;
    }
    return left.every((item, index) => sameYamlValue(item, right[index]));
  }
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every(
    (key) =>
      Object.prototype.hasOwnProperty.call(right, key) &&
      sameYamlValue(
        (left as Record<string, unknown>)[key],
        (right as Record<string, unknown>)[key],
      ),
  );
}
