/**
 * Reading, writing and editing a note's front matter (Obsidian "properties").
 *
 * Reading never throws: broken YAML comes back as an error with its 1-based file line, plus
 * the body so indexing can go on. Editing is surgical: only the lines of the keys being
 * changed are rewritten, so comments, key order, quoting, line endings and every body byte
 * of the rest of the file survive, and setting then deleting a key gives back the original
 * bytes. Every edit is re-read before it is returned; if the result would not read back as
 * exactly the intended data, the whole block is re-serialized instead, and if even that
 * fails the edit is refused (`ok: false`), so a caller never writes a half-changed file.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, Scalar, visit, type Document } from 'yaml';
import {
  BOM,
  detectLineEnding,
  locateFrontMatter,
  positionAt,
  withLineEnding,
  type LineEnding,
} from './front-matter-fence';
import {
  checkFieldName,
  FrontMatterValueError,
  MAX_ALIAS_COUNT,
  normalizeFieldValue,
  sameYamlValue,
  serializeDocument,
  serializeFields,
  YAML_READ_OPTIONS,
  type FieldStyle,
} from './yaml-values';

export interface FrontMatterError {
  /** 1-based line in the file (the opening `---` is line 1). */
  line: number;
  /** 1-based column. */
  column: number;
  message: string;
  /** The front-matter key the error is about, when there is one. */
  field?: string;
}

export type FrontMatterParse =
  | {
      ok: true;
      hasFrontMatter: boolean;
      data: Record<string, unknown>;
      body: string;
      bodyStartLine: number;
    }
  | { ok: false; error: FrontMatterError; body: string; bodyStartLine: number };

export type FrontMatterUpdate = { ok: true; text: string } | { ok: false; error: FrontMatterError };

/** Characters YAML 1.2 does not allow in a stream (tab, line feed and carriage return are fine). */
const FORBIDDEN_CHARACTER =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/** The YAML sits after the opening fence, so YAML line n is file line n + 1. */
const YAML_LINE_OFFSET = 1;

/** Splits a note into front-matter data and body. Never throws. */
export function parseFrontMatter(text: string): FrontMatterParse {
  const fence = locateFrontMatter(text);
  if (fence === null) {
    const body = text.startsWith(BOM) ? text.slice(BOM.length) : text;
    return { ok: true, hasFrontMatter: false, data: {}, body, bodyStartLine: 1 };
  }
  const body = text.slice(fence.bodyStart);
  const read = readYamlMapping(text.slice(fence.yamlStart, fence.yamlEnd));
  if (!read.ok) return { ok: false, error: read.error, body, bodyStartLine: fence.bodyStartLine };
  return {
    ok: true,
    hasFrontMatter: true,
    data: read.data,
    body,
    bodyStartLine: fence.bodyStartLine,
  };
}

/**
 * A whole note file: `---\n<yaml of fields in the given order>---\n` + body. Dates are ISO
 * strings, written as plain scalars; `undefined` values are left out; lists of scalars are
 * written `[a, b]`. Throws FrontMatterValueError (naming the field) for a value YAML cannot
 * hold or a bad or repeated key: that is a programming error, not user input.
 */
export function stringifyNoteFile(
  fields: ReadonlyArray<readonly [string, unknown]>,
  body: string,
  options: { lineEnding?: LineEnding } = {},
): string {
  const eol = options.lineEnding ?? '\n';
  const written: Array<readonly [string, unknown]> = [];
  const seen = new Set<string>();
  for (const [field, value] of fields) {
    const problem = checkFieldName(field);
    if (problem !== null) throw new FrontMatterValueError(field, problem);
    if (seen.has(field)) {
      throw new FrontMatterValueError(field, `front-matter key "${field}" is given twice`);
    }
    seen.add(field);
    if (value !== undefined) written.push([field, normalizeFieldValue(field, value)]);
  }
  return withLineEnding(`---\n${serializeFields(written)}---\n`, eol) + body;
}

/**
 * Changes only the given keys (`undefined` deletes), preserving unknown keys, order,
 * comments, line endings and every body byte. New keys go at the end of the block. Broken
 * YAML gives `ok: false` and no text. A file without front matter gets a block (unless
 * there is nothing to set, in which case it comes back unchanged).
 */
export function updateFrontMatter(
  text: string,
  changes: Readonly<Record<string, unknown>>,
): FrontMatterUpdate {
  const normalized: Array<[string, unknown]> = [];
  for (const [field, value] of Object.entries(changes)) {
    const problem = checkFieldName(field);
    if (problem !== null)
      return { ok: false, error: { line: 1, column: 1, message: problem, field } };
    try {
      normalized.push([field, value === undefined ? undefined : normalizeFieldValue(field, value)]);
    } catch (error) {
      if (error instanceof FrontMatterValueError) {
        return { ok: false, error: { line: 1, column: 1, message: error.message, field } };
      }
      throw error;
    }
  }

  const fence = locateFrontMatter(text);
  if (fence === null) {
    const added = normalized.filter(([, value]) => value !== undefined);
    if (added.length === 0) return { ok: true, text };
    const bom = text.startsWith(BOM) ? BOM : '';
    const eol = detectLineEnding(text);
    try {
      const block = withLineEnding(`---\n${serializeFields(added)}---\n`, eol);
      return { ok: true, text: bom + block + text.slice(bom.length) };
    } catch (error) {
      return { ok: false, error: { line: 1, column: 1, message: errorMessage(error) } };
    }
  }

  const source = text.slice(fence.yamlStart, fence.yamlEnd);
  const read = readYamlMapping(source);
  if (!read.ok) return { ok: false, error: read.error };
  // A key set to the value it already holds keeps its bytes (spacing, quoting, comments).
  const data = read.data;
  const effective = normalized.filter(([field, value]) =>
    Object.prototype.hasOwnProperty.call(data, field)
      ? value === undefined || !sameYamlValue(data[field], value)
      : value !== undefined,
  );
  if (effective.length === 0) return { ok: true, text };

  const expected = new Map(Object.entries(data));
  for (const [field, value] of effective) {
    if (value === undefined) expected.delete(field);
    else expected.set(field, value);
  }

  const candidates = [
    () => editSurgically(source, read.doc, effective, fence.eol),
    () => rewriteWholeBlock(source, effective, fence.eol),
  ];
  for (const candidate of candidates) {
    let edited: string | null;
    try {
      edited = candidate();
    } catch {
      // yaml refuses to print some documents (an alias whose anchor the change removed).
      edited = null;
    }
    if (edited !== null && readsBackAs(edited, expected)) {
      return {
        ok: true,
        text: text.slice(0, fence.yamlStart) + edited + text.slice(fence.yamlEnd),
      };
    }
  }
  return {
    ok: false,
    error: {
      line: 1,
      column: 1,
      message:
        'the front matter could not be rewritten so that it reads back as intended ' +
        '(a changed value may be a YAML anchor that other keys refer to)',
    },
  };
}

/** "Notes/a.md:3:1: front matter: Map keys must be unique" */
export function describeFrontMatterError(path: string, error: FrontMatterError): string {
  return `${path}:${error.line}:${error.column}: front matter: ${error.message}`;
}

type YamlMappingRead =
  | { ok: true; doc: Document.Parsed; data: Record<string, unknown> }
  | { ok: false; error: FrontMatterError };

function readYamlMapping(source: string): YamlMappingRead {
  try {
    return readYamlMappingUnguarded(source);
  } catch (error) {
    // yaml recurses per nesting level: thousands of `[[[…` overflow the stack.
    const message =
      error instanceof RangeError
        ? 'front matter is nested too deeply to read'
        : `YAML could not be read: ${errorMessage(error)}`;
    return failAt(source, 0, message);
  }
}

function readYamlMappingUnguarded(source: string): YamlMappingRead {
  const doc = parseDocument(source, YAML_READ_OPTIONS);
  const [first] = doc.errors;
  if (first !== undefined) {
    const position = first.linePos?.[0];
    // Errors noticed at the very end (an unclosed `[`) point at the last YAML line, not the fence.
    const lastLine = Math.max(1, source.split('\n').length - (source.endsWith('\n') ? 1 : 0));
    const line = Math.min(position?.line ?? 1, lastLine);
    return {
      ok: false,
      error: {
        line: line + YAML_LINE_OFFSET,
        column: line === position?.line ? position.col : 1,
        message: plainYamlMessage(first.message),
      },
    };
  }
  const forbidden = FORBIDDEN_CHARACTER.exec(source);
  if (forbidden !== null) {
    const code = (forbidden[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return failAt(source, forbidden.index, `control character U+${code} is not allowed in YAML`);
  }
  const contents = doc.contents;
  if (contents === null) return { ok: true, doc, data: {} };
  if (!isMap(contents)) {
    const found = isSeq(contents) ? 'a list' : isScalar(contents) ? 'a single value' : 'an alias';
    return failAt(
      source,
      contents.range[0],
      `front matter must be a mapping of "name: value" lines, found ${found}`,
    );
  }
  let unresolved: number | null = null;
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) === undefined) {
        unresolved = node.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (unresolved !== null) return failAt(source, unresolved, 'alias refers to no anchor');
  try {
    const data: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { ok: true, doc, data: data as Record<string, unknown> };
  } catch (error) {
    if (error instanceof RangeError) throw error;
    return failAt(source, contents.range[0], `YAML could not be read: ${errorMessage(error)}`);
  }
}

function failAt(source: string, offset: number, message: string): YamlMappingRead {
  const { line, column } = positionAt(source, offset);
  return { ok: false, error: { line: line + YAML_LINE_OFFSET, column, message } };
}

/** yaml's pretty messages end with " at line n, column m:" and a source excerpt; we report position separately. */
function plainYamlMessage(message: string): string {
  const cut = message.search(/ at line \d+, column \d+:/);
  return (cut === -1 ? message : message.slice(0, cut)).trim();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readsBackAs(source: string, expected: ReadonlyMap<string, unknown>): boolean {
  const read = readYamlMapping(source);
  if (!read.ok) return false;
  const entries = Object.entries(read.data);
  return (
    entries.length === expected.size &&
    entries.every(([key, value]) => expected.has(key) && sameYamlValue(value, expected.get(key)))
  );
}

interface TextEdit {
  start: number;
  end: number;
  replacement: string;
}

/**
 * Rewrites only the lines of the changed keys in a block mapping whose keys start their
 * lines. Returns null when the mapping has another shape (flow `{…}`, indented, complex keys).
 */
function editSurgically(
  source: string,
  doc: Document.Parsed,
  changes: ReadonlyArray<readonly [string, unknown]>,
  eol: LineEnding,
): string | null {
  const contents = doc.contents;
  if (contents !== null && (!isMap(contents) || contents.flow)) return null;
  const pairs = contents === null ? [] : contents.items;
  const edits: TextEdit[] = [];
  let appended = '';

  for (const [field, value] of changes) {
    const pair = pairs.find((item) => isScalar(item.key) && String(item.key.value) === field);
    if (pair === undefined) {
      if (value !== undefined) appended += withLineEnding(serializeFields([[field, value]]), eol);
      continue;
    }
    if (!isScalar(pair.key) || pair.key.range === undefined || pair.key.range === null) return null;
    const keyStart = pair.key.range[0];
    if (keyStart !== 0 && source[keyStart - 1] !== '\n') return null;
    const valueNode = pair.value;
    let contentEnd =
      valueNode !== null &&
      (isScalar(valueNode) || isMap(valueNode) || isSeq(valueNode) || isAlias(valueNode))
        ? (valueNode.range?.[1] ?? pair.key.range[1])
        : pair.key.range[1];
    while (contentEnd > keyStart && /\s/.test(source[contentEnd - 1] ?? '')) contentEnd -= 1;
    const lineBreak = source.indexOf('\n', contentEnd);
    const spanEnd = lineBreak === -1 ? source.length : lineBreak + 1;
    const rest = source
      .slice(contentEnd, lineBreak === -1 ? source.length : lineBreak)
      .replace(/\r$/, '');
    if (rest.trim() !== '' && !/^\s+#/.test(rest)) return null;

    if (value === undefined) {
      edits.push({ start: keyStart, end: spanEnd, replacement: '' });
      continue;
    }
    const style: FieldStyle = {};
    if (isSeq(valueNode) && !valueNode.flow) style.blockList = true;
    if (
      isScalar(valueNode) &&
      (valueNode.type === Scalar.QUOTE_DOUBLE || valueNode.type === Scalar.QUOTE_SINGLE)
    ) {
      style.quote = valueNode.type;
    }
    const written = serializeFields([[field, value]], new Map([[field, style]]));
    const lineEndAt = written.indexOf('\n');
    // A trailing `# comment` stays on the key's first line (valid after any value or block header).
    const withComment =
      rest.trim() === '' ? written : written.slice(0, lineEndAt) + rest + written.slice(lineEndAt);
    edits.push({ start: keyStart, end: spanEnd, replacement: withLineEnding(withComment, eol) });
  }

  let result = source;
  for (const edit of edits.sort((left, right) => right.start - left.start)) {
    result = result.slice(0, edit.start) + edit.replacement + result.slice(edit.end);
  }
  if (appended !== '') {
    const needsBreak = result !== '' && !result.endsWith('\n');
    result += (needsBreak ? eol : '') + appended;
  }
  return result;
}

/** Re-serializes the whole block (JSON-style `{…}` front matter becomes YAML, as Obsidian does). */
function rewriteWholeBlock(
  source: string,
  changes: ReadonlyArray<readonly [string, unknown]>,
  eol: LineEnding,
): string | null {
  const doc = parseDocument(source, YAML_READ_OPTIONS);
  if (doc.errors.length > 0) return null;
  for (const [field, value] of changes) {
    if (value === undefined) doc.delete(field);
    else doc.set(field, doc.createNode(value));
  }
  return withLineEnding(serializeDocument(doc), eol);
}
