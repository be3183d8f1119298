import { locateFrontMatter } from './front-matter-fence';
import { parseFrontMatter, updateFrontMatter } from './front-matter';
import { mergeLines } from './merge-lines';
import type { LineMerge } from './merge-lines';
import { sameYamlValue } from './yaml-values';

/*
 * Three-way merge of a Markdown note (Cairn Sync, DESIGN §9): the front matter key by key, the
 * body line by line (merge-lines.ts). Two edits that changed different keys merge even when the
 * keys sit on neighbouring lines (a line merge would call that a conflict); a key both sides set
 * to different values, or body lines both changed, is a conflict, and the caller keeps both
 * versions. `theirs` is the version already there (it wins the order of lines both added at one
 * spot), `ours` the one arriving.
 */

/** Merges two edits of `base`: the whole text by lines first, then front matter key by key. */
export function mergeNote(base: string, ours: string, theirs: string): LineMerge {
  const whole = mergeLines(base, ours, theirs);
  if (whole.clean) return whole;
  const parsed = [base, ours, theirs].map((text) => parseFrontMatter(text));
  const [b, o, t] = parsed;
  if (b === undefined || o === undefined || t === undefined) return whole;
  if (!b.ok || !o.ok || !t.ok) return whole; // broken YAML somewhere: only lines can be compared
  if (!o.hasFrontMatter && !t.hasFrontMatter) return whole;

  const body = mergeLines(b.body, o.body, t.body);
  if (!body.clean) return body;

  const changes: Record<string, unknown> = {};
  const keys = new Set([...Object.keys(b.data), ...Object.keys(o.data), ...Object.keys(t.data)]);
  for (const key of keys) {
    const baseValue = valueOf(b.data, key);
    const ourValue = valueOf(o.data, key);
    const theirValue = valueOf(t.data, key);
    if (same(ourValue, theirValue) || same(ourValue, baseValue)) continue; // theirs stands
    if (same(theirValue, baseValue)) {
      changes[key] = ourValue === ABSENT ? undefined : ourValue; // only ours changed it
      continue;
    }
    return {
      clean: false,
      reason: `both versions changed the front matter key "${key}" differently`,
    };
  }
  const updated = updateFrontMatter(theirs, changes);
  if (!updated.ok) return { clean: false, reason: `front matter: ${updated.error.message}` };
  const fence = locateFrontMatter(updated.text);
  const head = fence === null ? '' : updated.text.slice(0, fence.bodyStart);
  return { clean: true, text: head + body.text };
}

const ABSENT = Symbol('absent');

function valueOf(data: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(data, key) ? data[key] : ABSENT;
}

function same(left: unknown, right: unknown): boolean {
  if (left === ABSENT || right === ABSENT) return left === right;
  return sameYamlValue(left, right);
}
