/*
 * The engine snapshot's large fields (postings, the vocabulary, the note table: ~24 MB at 10k
 * notes) as records of their own. An IndexedDB put clones its whole value at once, so the
 * snapshot in one record was one long task (measured 120 ms at 10k notes); in parts of a few
 * MB, with a UI turn between puts, no step is long.
 */

const TYPED_ARRAYS = {
  Uint8Array,
  Uint16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
} as const;

type TypedArrayKind = keyof typeof TYPED_ARRAYS;
type TypedArray = InstanceType<(typeof TYPED_ARRAYS)[TypedArrayKind]>;
type PartValue = string | TypedArray;

/** Stands in the main record for a field stored in parts `first` … `first + count - 1`. */
export interface FieldPartsRef {
  fieldParts: { kind: 'string' | TypedArrayKind; first: number; count: number; length: number };
}

export interface SplitSnapshot {
  /** The value with every large field replaced by a FieldPartsRef. */
  main: unknown;
  /** Part number → its value, computed when asked (each piece is copied just before its put). */
  parts: Array<() => PartValue>;
}

function typedKind(value: unknown): TypedArrayKind | undefined {
  for (const [kind, type] of Object.entries(TYPED_ARRAYS)) {
    if (value instanceof type) return kind as TypedArrayKind;
  }
  return undefined;
}

/** Replaces strings and typed arrays larger than `maxBytes` with references to parts. */
export function splitLargeFields(value: unknown, maxBytes: number): SplitSnapshot {
  const parts: Array<() => PartValue> = [];
  const visit = (field: unknown): unknown => {
    if (typeof field === 'string') {
      // UTF-16: two bytes per code unit.
      const step = Math.max(1, Math.floor(maxBytes / 2));
      if (field.length <= step) return field;
      const first = parts.length;
      for (let start = 0; start < field.length; start += step) {
        parts.push(() => field.slice(start, start + step));
      }
      return ref('string', first, parts.length - first, field.length);
    }
    const kind = typedKind(field);
    if (kind !== undefined) {
      const array = field as TypedArray;
      if (array.byteLength <= maxBytes) return array;
      const step = Math.max(1, Math.floor(maxBytes / array.BYTES_PER_ELEMENT));
      const first = parts.length;
      for (let start = 0; start < array.length; start += step) {
        parts.push(() => array.slice(start, start + step));
      }
      return ref(kind, first, parts.length - first, array.length);
    }
    if (Array.isArray(field)) return field.map(visit);
    if (typeof field === 'object' && field !== null) {
      return Object.fromEntries(Object.entries(field).map(([key, inner]) => [key, visit(inner)]));
    }
    return field;
  };
  return { main: visit(value), parts };
}

function ref(
  kind: FieldPartsRef['fieldParts']['kind'],
  first: number,
  count: number,
  length: number,
): FieldPartsRef {
  return { fieldParts: { kind, first, count, length } };
}

function isRef(value: object): value is FieldPartsRef {
  if (!('fieldParts' in value)) return false;
  const parts = (value as FieldPartsRef).fieldParts;
  return (
    typeof parts === 'object' &&
    parts !== null &&
    (parts.kind === 'string' || parts.kind in TYPED_ARRAYS) &&
    Number.isInteger(parts.first) &&
    Number.isInteger(parts.count) &&
    Number.isInteger(parts.length) &&
    parts.first >= 0 &&
    parts.count >= 0 &&
    parts.length >= 0
  );
}

/**
 * `splitLargeFields` undone: every reference replaced by its parts joined, read with `readPart`
 * (which throws when a part is missing or from another write).
 */
export async function joinLargeFields(
  main: unknown,
  readPart: (part: number) => Promise<unknown>,
): Promise<unknown> {
  const visit = async (field: unknown): Promise<unknown> => {
    if (Array.isArray(field)) {
      const out: unknown[] = [];
      for (const inner of field) out.push(await visit(inner));
      return out;
    }
    if (typeof field !== 'object' || field === null || typedKind(field) !== undefined) {
      return field;
    }
    if (!isRef(field)) {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(field)) out[key] = await visit(inner);
      return out;
    }
    const { kind, first, count, length } = field.fieldParts;
    if (kind === 'string') {
      const pieces: string[] = [];
      for (let part = first; part < first + count; part++) {
        const piece = await readPart(part);
        if (typeof piece !== 'string') throw new Error(`snapshot part ${part} is not text`);
        pieces.push(piece);
      }
      const joined = pieces.join('');
      if (joined.length !== length) {
        throw new Error(
          `snapshot parts ${first}–${first + count - 1} hold ${joined.length} of ${length} characters`,
        );
      }
      return joined;
    }
    const out = new TYPED_ARRAYS[kind](length);
    let at = 0;
    for (let part = first; part < first + count; part++) {
      const piece = await readPart(part);
      if (!(piece instanceof TYPED_ARRAYS[kind]) || at + piece.length > length) {
        throw new Error(`snapshot part ${part} is not a ${kind} that fits`);
      }
      out.set(piece, at);
      at += piece.length;
    }
    if (at !== length) {
      throw new Error(
        `snapshot parts ${first}–${first + count - 1} hold ${at} of ${length} values`,
      );
    }
    return out;
  };
  return visit(main);
}
