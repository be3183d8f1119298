import { parseFrontMatter, readNoteMeta } from '../../shared/markdown';

/**
 * What the index needs from a note: title/tags/aliases/id/type (docs/vault-format.md, read by
 * shared/markdown), the body and the file line it starts on, and warnings for what had to be
 * skipped. Front matter that does not parse costs only the metadata: the body is still
 * indexed and the warning names the line.
 */
export interface IndexedNoteMeta {
  readonly title: string;
  readonly tags: string[];
  readonly aliases: string[];
  readonly id?: string;
  readonly type?: string;
  /** Front-matter `lang` (BCP 47, e.g. `de`, `zh-TW`), when it is a string. */
  readonly lang?: string;
  /** Front-matter `created`, as an instant, when it parses. */
  readonly createdMs?: number;
  /** Front-matter `updated`, as an instant, when it parses. */
  readonly updatedMs?: number;
  readonly body: string;
  /** 1-based file line of the body's first line. */
  readonly bodyStartLine: number;
  readonly warnings: string[];
}

export function readIndexedNoteMeta(path: string, text: string): IndexedNoteMeta {
  const warnings: string[] = [];
  const parsed = parseFrontMatter(text);
  let data: Record<string, unknown> = {};
  if (parsed.ok) {
    data = parsed.data;
    // shared/markdown reads an opening fence with no closing one as plain text; say so, since
    // the note's properties are then ignored (often a sync tool caught half-way).
    if (!parsed.hasFrontMatter && /^\ufeff?---[ \t]*\r?\n/.test(text)) {
      warnings.push('line 1: front matter is never closed (no second "---" line); read as text');
    }
  } else {
    warnings.push(
      `line ${parsed.error.line}: front matter: ${parsed.error.message}; only the body was indexed`,
    );
  }
  const { meta, warnings: fieldWarnings } = readNoteMeta({ path, data, body: parsed.body });
  for (const warning of fieldWarnings) {
    warnings.push(`front matter "${warning.field}": ${warning.message}; skipped`);
  }
  const createdMs = meta.created === undefined ? undefined : Date.parse(meta.created);
  const updatedMs = meta.updated === undefined ? undefined : Date.parse(meta.updated);
  return {
    title: meta.title,
    tags: meta.tags,
    aliases: meta.aliases,
    ...(meta.id === undefined ? {} : { id: meta.id }),
    ...(meta.type === undefined ? {} : { type: meta.type }),
    ...(typeof data.lang === 'string' && data.lang.trim() !== '' ? { lang: data.lang.trim() } : {}),
    ...(createdMs === undefined || Number.isNaN(createdMs) ? {} : { createdMs }),
    ...(updatedMs === undefined || Number.isNaN(updatedMs) ? {} : { updatedMs }),
    body: parsed.body,
    bodyStartLine: parsed.bodyStartLine,
    warnings,
  };
}
