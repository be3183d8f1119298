import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EvalDocument } from './engine';
import type { Judgments } from './metrics';

export interface EvalQuery {
  id: string;
  text: string;
  judgments: Judgments;
}

export interface Dataset {
  name: string;
  documents: EvalDocument[];
  queries: EvalQuery[];
  /** Questions the documents do not answer (for the answer relevance gate). */
  unanswerable?: string[];
  /** Unanswered questions that share vocabulary with the documents (near misses). */
  nearMiss?: string[];
}

/**
 * Cranfield (corpora/cranfield): 1,400 aeronautics abstracts, 225 queries, graded judgments
 * where position 1 is a complete answer and 4 of minimum interest; gain = 5 − position, as the
 * corpus README defines it. Each abstract becomes one note titled by its title.
 */
export function loadCranfield(folder: string): Dataset {
  const docs = readJson<Array<{ id: number | string; title?: string; body?: string }>>(
    join(folder, 'cran_docs.json'),
  );
  const queries = readJson<Array<{ 'query number': number | string; query: string }>>(
    join(folder, 'cran_queries.json'),
  );
  const qrels = readJson<Array<{ query_num: string; position: number; id: string }>>(
    join(folder, 'cran_qrels.json'),
  );
  const judged = new Map<string, Map<string, number>>();
  for (const { query_num, position, id } of qrels) {
    const gain = 5 - Number(position);
    if (!(gain > 0 && gain < 5)) continue;
    let map = judged.get(String(query_num));
    if (map === undefined) judged.set(String(query_num), (map = new Map()));
    map.set(String(id), Math.max(map.get(String(id)) ?? 0, gain));
  }
  return {
    name: 'cranfield',
    documents: docs.map((doc) => {
      const title = (doc.title ?? '').trim();
      const text = (doc.body ?? '').trim();
      const id = String(doc.id);
      return {
        id,
        title,
        text,
        path: `cranfield/${id.padStart(4, '0')}.md`,
        aliases: [],
        headings: [],
        raw: `---\ntitle: ${JSON.stringify(title)}\n---\n${text}\n`,
      };
    }),
    queries: queries
      .map((query) => ({
        id: String(query['query number']),
        text: query.query,
        judgments: judged.get(String(query['query number'])) ?? new Map<string, number>(),
      }))
      .filter((query) => query.judgments.size > 0),
  };
}

/** A labelled question set: `{ questions: [{ id, question, relevant: { "<path>": gain } }] }`. */
interface QuestionFile {
  dataset: string;
  questions: Array<{ id: string; question: string; relevant: Record<string, number> }>;
  unanswerable?: string[];
  near_miss?: string[];
}

/**
 * A folder of Markdown notes (a vault) plus a question file whose judgments name vault paths.
 * Every judged path must exist, so a renamed note in the corpus fails loudly instead of
 * silently scoring 0.
 */
export function loadVaultQuestions(name: string, vault: string, questionFile: string): Dataset {
  const documents = readVault(vault);
  const paths = new Set(documents.map((doc) => doc.id));
  const file = readJson<QuestionFile>(questionFile);
  if (!Array.isArray(file.questions) || file.questions.length === 0) {
    throw new Error(`${questionFile}: "questions" must be a non-empty array`);
  }
  const ids = new Set<string>();
  const queries = file.questions.map((entry, index) => {
    const where = `${questionFile}: questions[${index}]`;
    if (typeof entry.id !== 'string' || ids.has(entry.id)) {
      throw new Error(`${where}.id must be a unique string`);
    }
    ids.add(entry.id);
    if (typeof entry.question !== 'string' || entry.question.trim() === '') {
      throw new Error(`${where}.question must be non-empty text`);
    }
    const judgments = new Map<string, number>();
    for (const [path, gain] of Object.entries(entry.relevant ?? {})) {
      if (!paths.has(path)) throw new Error(`${where}.relevant: no note "${path}" in ${vault}`);
      if (!(Number.isInteger(gain) && gain >= 1 && gain <= 3)) {
        throw new Error(`${where}.relevant["${path}"] must be a gain of 1, 2 or 3 (got ${gain})`);
      }
      judgments.set(path, gain);
    }
    if (judgments.size === 0) throw new Error(`${where}.relevant names no note`);
    return { id: entry.id, text: entry.question, judgments };
  });
  const unanswerable = file.unanswerable ?? [];
  if (
    !Array.isArray(unanswerable) ||
    !unanswerable.every((q) => typeof q === 'string' && q.trim())
  ) {
    throw new Error(`${questionFile}: "unanswerable" must be a list of non-empty questions`);
  }
  const nearMiss = file.near_miss ?? [];
  if (!Array.isArray(nearMiss) || !nearMiss.every((q) => typeof q === 'string' && q.trim())) {
    throw new Error(`${questionFile}: "near_miss" must be a list of non-empty questions`);
  }
  return { name, documents, queries, unanswerable, nearMiss };
}

/** Every `.md` file under `vault`, in a stable order, with front matter parsed. */
export function readVault(vault: string): EvalDocument[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(vault);
  return files.map((file) => {
    const raw = readFileSync(file, 'utf8');
    const path = relative(vault, file).split(sep).join('/');
    const { data, body } = splitFrontMatter(raw, path);
    const aliases = toStrings(data.aliases);
    const headings = [...body.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => m[1]!);
    const h1 = headings.find((_, i) => /^#[ \t]/m.test(body) && i === 0);
    const title =
      typeof data.title === 'string' ? data.title : (h1 ?? path.replace(/^.*\//, '').slice(0, -3));
    return { id: path, title, text: body, path, aliases, headings, raw };
  });
}

function splitFrontMatter(
  raw: string,
  path: string,
): { data: Record<string, unknown>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(raw);
  if (match === null) return { data: {}, body: raw };
  let data: unknown;
  try {
    data = parseYaml(match[1]!);
  } catch (error) {
    throw new Error(`${path}: front matter is not valid YAML (${(error as Error).message})`);
  }
  return {
    data: data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {},
    body: raw.slice(match[0].length),
  };
}

function toStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

function readJson<T>(file: string): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
}
