import { parse as parseYaml, YAMLParseError } from 'yaml';
import { basename } from 'node:path/posix';

/**
 * What the index needs from a note: title/tags/aliases/id/type per DESIGN §2, plus the body
 * and where it starts. Front matter that does not parse costs only the metadata: the body is
 * still indexed and a warning names the line.
 *
 * Interim: shared/markdown (`parseFrontMatter` + `extractNoteMeta`) is being written in
 * parallel; this module is the single place to switch over once it lands.
 */
export interface NoteMeta {
  readonly title: string;
  readonly tags: string[];
  readonly aliases: string[];
  readonly id?: string;
  readonly type?: string;
  /** Front-matter `created`, as an instant, when it parses. */
  readonly createdMs?: number;
  readonly body: string;
  /** 1-based file line of the body's first line. */
  readonly bodyStartLine: number;
  readonly warnings: string[];
}

const FENCE = /^---[ \t]*$/;
const CLOSING_FENCE = /^(?:---|\.\.\.)[ \t]*$/;
const H1 = /^#[ \t]+(.+?)[ \t#]*$/m;
// An Obsidian tag: `#` then letters, digits, `_`, `-`, `/`, with at least one non-digit.
const INLINE_TAG = /(?:^|[\s(,;])#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gu;
const FENCED_CODE = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm;

export function readNoteMeta(path: string, text: string): NoteMeta {
  const warnings: string[] = [];
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const lines = source.split(/\r\n|\r|\n/);
  let data: Record<string, unknown> = {};
  let body = source;
  let bodyStartLine = 1;

  if (lines.length > 1 && FENCE.test(lines[0] ?? '')) {
    const close = lines.findIndex((line, index) => index > 0 && CLOSING_FENCE.test(line));
    if (close === -1) {
      warnings.push('line 1: front matter is never closed (no second "---" line); read as text');
    } else {
      const yamlText = lines.slice(1, close).join('\n');
      bodyStartLine = close + 2;
      body = lines.slice(close + 1).join('\n');
      try {
        const parsed: unknown = yamlText.trim() === '' ? {} : parseYaml(yamlText);
        if (parsed === null || parsed === undefined) data = {};
        else if (typeof parsed === 'object' && !Array.isArray(parsed)) {
          data = parsed as Record<string, unknown>;
        } else {
          warnings.push('line 2: front matter is not a set of "key: value" lines; ignored');
        }
      } catch (error) {
        const line =
          error instanceof YAMLParseError && error.linePos ? error.linePos[0].line + 1 : 2;
        const reason = (error as Error).message.split('\n')[0] ?? 'invalid YAML';
        warnings.push(
          `line ${line}: front matter is not valid YAML (${reason}); only the body was indexed`,
        );
      }
    }
  }

  const frontTitle = stringField(data.title);
  const h1 = H1.exec(body.replace(FENCED_CODE, ''))?.[1]?.trim();
  const title = frontTitle ?? (h1 && h1 !== '' ? h1 : basename(path).replace(/\.md$/i, ''));
  const tags = unique([...listField(data.tags ?? data.tag), ...inlineTags(body)].map(normaliseTag));
  const aliases = unique(aliasField(data.aliases ?? data.alias));
  const id = stringField(data.id);
  const type = stringField(data.type);
  const createdMs = instantField(data.created);
  return {
    title,
    tags: tags.filter((tag) => tag !== ''),
    aliases,
    ...(id === undefined ? {} : { id }),
    ...(type === undefined ? {} : { type }),
    ...(createdMs === undefined ? {} : { createdMs }),
    body,
    bodyStartLine,
    warnings,
  };
}

function stringField(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** `tags: [a, b]`, `tags: a, b`, `tags: a b` and a YAML list all mean the same to Obsidian. */
function listField(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => listField(item));
  if (typeof value === 'number') return [String(value)];
  if (typeof value !== 'string') return [];
  return value
    .split(/[,\s]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Aliases hold spaces ("New York"): a string splits at commas only. */
function aliasField(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => aliasField(item));
  if (typeof value === 'number') return [String(value)];
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function instantField(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function inlineTags(body: string): string[] {
  const withoutCode = body.replace(FENCED_CODE, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(INLINE_TAG)].map((match) => match[1] ?? '');
}

function normaliseTag(tag: string): string {
  return tag.replace(/^#/, '').trim();
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
