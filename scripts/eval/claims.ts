/**
 * How well the claim checker (shared/search/claim-check.ts) catches what an LLM gets wrong
 * (issue 32). Faithful phrased answers over real notes (test/fixtures/eval/claims.json) are
 * answered by the fake Ollama server through the real path (OllamaPhraser over HTTP, streamed
 * word by word, into the tool runner's answer): once as written, counting faithful claims
 * flagged, then once per claim with a wrong number, name or date inserted
 * (test/fakes/claim-corrupter.ts), counting the inserted claims caught.
 *
 * `node scripts/claims-eval.mjs` prints the table; test/scripts/eval/claims-eval.test.ts keeps
 * the numbers above the targets (≥ 95 % caught, ≤ 5 % of faithful claims flagged).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OllamaPhraser } from '../../shared/chat/ollama-phraser';
import { ChatPortError } from '../../shared/chat/ports';
import { ToolRunner } from '../../shared/chat/tool-runner';
import type { AnswerData } from '../../shared/chat/tool-runner';
import type { AuditedClaim } from '../../shared/protocol/answer-audit';
import type { NoteCitation } from '../../shared/protocol/citation';
import { splitClaims } from '../../shared/search/claim-check';
import { fetchOllamaHttp } from '../../companion/chat/fetch-ollama-http';
import {
  INSERTED_ERRORS,
  SWAPPED_ERRORS,
  insertErrors,
  type InsertedError,
} from '../../test/fakes/claim-corrupter';
import { FakeOllamaServer } from '../../test/fakes/ollama-server';
import { table } from './table';

export interface ClaimEvalCase {
  vault: 'sample' | 'team' | 'help';
  question: string;
  passages: Array<{ path: string; quote: string }>;
  answer: string;
}

export interface ClaimEvalRow {
  kind: 'faithful' | InsertedError;
  claims: number;
  /** Unsupported verdicts: for `faithful` false flags, for the others caught errors. */
  flagged: number;
  rate: number;
}

export interface ClaimEvalResult {
  rows: ClaimEvalRow[];
  cases: number;
  skippedVaults: string[];
  /** Every faithful claim flagged and every inserted claim missed, with the checker's why. */
  misses: Array<{ kind: ClaimEvalRow['kind']; claim: string; why: string }>;
}

export function vaultRoots(repo: string, corpora: string): Record<ClaimEvalCase['vault'], string> {
  return {
    sample: join(repo, 'companion/sample-vault'),
    team: join(repo, 'test/fixtures/vaults/team-notes'),
    help: join(corpora, 'obsidian-help-en'),
  };
}

function citationsOf(root: string, item: ClaimEvalCase): NoteCitation[] {
  return item.passages.map((passage) => {
    const file = readFileSync(join(root, passage.path), 'utf8');
    const at = file.indexOf(passage.quote);
    if (at < 0) throw new Error(`${passage.path}: the quote "${passage.quote}" is not in the note`);
    const line = file.slice(0, at).split('\n').length;
    const lines = passage.quote.split('\n').length;
    return {
      type: 'note',
      path: passage.path,
      title: passage.path.replace(/^.*\//, '').replace(/\.md$/, ''),
      excerpt: passage.quote,
      score: 1,
      lines: [line, line + lines - 1],
    };
  });
}

const unused = (): never => {
  throw new ChatPortError('UNAVAILABLE', 'not used by the claim evaluation');
};

export async function runClaimEval(options: {
  repo: string;
  corpora: string;
}): Promise<ClaimEvalResult> {
  const cases = (
    JSON.parse(readFileSync(join(options.repo, 'test/fixtures/eval/claims.json'), 'utf8')) as {
      cases: ClaimEvalCase[];
    }
  ).cases;
  const roots = vaultRoots(options.repo, options.corpora);
  const skippedVaults = Object.entries(roots)
    .filter(([, root]) => !existsSync(root))
    .map(([vault]) => vault);
  const fake = await FakeOllamaServer.start();
  try {
    let citations: NoteCitation[] = [];
    const runner = new ToolRunner({
      clock: { now: () => Date.UTC(2026, 10, 27, 12) },
      zone: () => 'Europe/Berlin',
      notes: { create: unused, append: unused, deleteCreated: unused, removeAppended: unused },
      reminderReader: { list: unused, get: unused },
      reminderWriter: {
        create: unused,
        snooze: unused,
        complete: unused,
        delete: unused,
        restore: unused,
      },
      searcher: { search: unused },
      answerer: {
        answer: () =>
          Promise.resolve({
            answer: citations.map((c, i) => `> ${c.excerpt} [${i + 1}]`).join('\n'),
            citations,
          }),
      },
      phraser: new OllamaPhraser({ http: fetchOllamaHttp(), baseUrl: fake.url, model: 'llama3.2' }),
      unsupportedClaims: () => 'mark',
    });
    const ask = async (question: string, reply: string): Promise<AuditedClaim[]> => {
      fake.chatReply = { content: reply };
      const outcome = await runner.run(
        { name: 'answer', args: { question } },
        { summarize: true },
        { now: Date.UTC(2026, 10, 27, 12), zone: 'Europe/Berlin' },
      );
      for await (const piece of outcome.stream ?? []) void piece;
      if (!outcome.result.success) throw new Error(outcome.result.error.message);
      return (outcome.result.data as AnswerData).audit?.claims ?? [];
    };

    const counts = new Map<ClaimEvalRow['kind'], { claims: number; flagged: number }>();
    const count = (kind: ClaimEvalRow['kind'], flagged: boolean) => {
      const row = counts.get(kind) ?? { claims: 0, flagged: 0 };
      row.claims++;
      if (flagged) row.flagged++;
      counts.set(kind, row);
    };
    const misses: ClaimEvalResult['misses'] = [];
    let used = 0;
    for (const item of cases) {
      if (skippedVaults.includes(item.vault)) continue;
      used++;
      citations = citationsOf(roots[item.vault], item);
      for (const claim of await ask(item.question, item.answer)) {
        count('faithful', !claim.supported);
        if (!claim.supported) misses.push({ kind: 'faithful', claim: claim.text, why: claim.why });
      }
      const evidence = item.passages.map((p) => p.quote).join('\n');
      for (const kind of [...INSERTED_ERRORS, ...SWAPPED_ERRORS]) {
        for (const variant of insertErrors(item.answer, kind, evidence)) {
          const body = splitClaims(variant.changed)[0]?.body;
          const claim = (await ask(item.question, variant.text)).find((c) => c.text === body);
          if (claim === undefined) throw new Error(`the audit lost the claim "${body ?? ''}"`);
          count(kind, !claim.supported);
          if (claim.supported) misses.push({ kind, claim: claim.text, why: claim.why });
        }
      }
    }
    const rows = (['faithful', ...INSERTED_ERRORS, ...SWAPPED_ERRORS] as const).map((kind) => {
      const row = counts.get(kind) ?? { claims: 0, flagged: 0 };
      return { kind, ...row, rate: row.claims === 0 ? 0 : row.flagged / row.claims };
    });
    return { rows, cases: used, skippedVaults, misses };
  } finally {
    await fake.close();
  }
}

export function claimEvalTable(result: ClaimEvalResult): string {
  const inserted = result.rows.filter((row) => INSERTED_ERRORS.includes(row.kind as InsertedError));
  const all = inserted.reduce(
    (sum, row) => ({ claims: sum.claims + row.claims, flagged: sum.flagged + row.flagged }),
    { claims: 0, flagged: 0 },
  );
  const percent = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)}%`);
  return table(
    ['claims', 'kind', 'count', 'flagged', 'rate'],
    [
      ...result.rows.map((row) => [
        row.kind === 'faithful'
          ? 'faithful (false flags)'
          : SWAPPED_ERRORS.includes(row.kind)
            ? 'harder, no target (caught)'
            : 'inserted (caught)',
        row.kind,
        String(row.claims),
        String(row.flagged),
        percent(row.flagged, row.claims),
      ]),
      [
        'inserted (caught)',
        'all',
        String(all.claims),
        String(all.flagged),
        percent(all.flagged, all.claims),
      ],
    ],
  );
}
