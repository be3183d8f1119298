import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bm25Engine } from '../../../scripts/eval/bm25';
import { loadCranfield, loadVaultQuestions, readVault } from '../../../scripts/eval/datasets';
import { corpusPath, optionalCorpus, repoRoot } from '../../helpers/corpora';
import { tempDir } from '../../companion/helpers/app';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('eval');
  mkdirSync(join(dir.path, 'vault/Sub'), { recursive: true });
  writeFileSync(
    join(dir.path, 'vault/Sub/Visa.md'),
    '---\naliases: [Schengen]\n---\n# Visa rules\n\n## Fees\nThe fee is 90 euro.\n',
  );
  writeFileSync(join(dir.path, 'vault/Plain.md'), 'No front matter, no heading.\n');
});
afterEach(() => dir.remove());

function questions(body: unknown): string {
  const file = join(dir.path, 'questions.json');
  writeFileSync(file, JSON.stringify(body));
  return file;
}

describe('readVault', () => {
  it('reads paths, aliases, headings and titles (front matter, H1, then file name)', () => {
    const docs = readVault(join(dir.path, 'vault'));
    expect(docs.map((d) => d.id)).toEqual(['Plain.md', 'Sub/Visa.md']);
    expect(docs[1]).toMatchObject({
      title: 'Visa rules',
      aliases: ['Schengen'],
      headings: ['Visa rules', 'Fees'],
    });
    expect(docs[0]?.title).toBe('Plain');
  });

  it('names the file whose front matter is broken', () => {
    writeFileSync(join(dir.path, 'vault/Bad.md'), '---\ntags: [unclosed\n---\nbody\n');
    expect(() => readVault(join(dir.path, 'vault'))).toThrow(/Bad\.md: front matter/);
  });
});

describe('loadVaultQuestions', () => {
  const vault = () => join(dir.path, 'vault');

  it('loads judgments and unanswerable questions', () => {
    const dataset = loadVaultQuestions(
      'tiny',
      vault(),
      questions({
        questions: [{ id: 'a', question: 'visa fee?', relevant: { 'Sub/Visa.md': 3 } }],
        unanswerable: ['boiling point of mercury'],
      }),
    );
    expect(dataset.queries[0]?.judgments.get('Sub/Visa.md')).toBe(3);
    expect(dataset.unanswerable).toEqual(['boiling point of mercury']);
  });

  it.each([
    [{ questions: [] }, /non-empty array/],
    [
      { questions: [{ id: 'a', question: ' ', relevant: { 'Plain.md': 1 } }] },
      /question must be non-empty/,
    ],
    [{ questions: [{ id: 'a', question: 'q', relevant: { 'Gone.md': 1 } }] }, /no note "Gone\.md"/],
    [{ questions: [{ id: 'a', question: 'q', relevant: { 'Plain.md': 5 } }] }, /gain of 1, 2 or 3/],
    [{ questions: [{ id: 'a', question: 'q', relevant: {} }] }, /names no note/],
    [
      {
        questions: [
          { id: 'a', question: 'q', relevant: { 'Plain.md': 1 } },
          { id: 'a', question: 'r', relevant: { 'Plain.md': 1 } },
        ],
      },
      /questions\[1\]\.id must be a unique/,
    ],
  ])('rejects a bad question file with a precise message (%#)', (body, message) => {
    expect(() => loadVaultQuestions('tiny', vault(), questions(body))).toThrow(message);
  });

  it('names a file that is not JSON', () => {
    const file = join(dir.path, 'broken.json');
    writeFileSync(file, '{ "questions": [');
    expect(() => loadVaultQuestions('tiny', vault(), file)).toThrow(/broken\.json: not valid JSON/);
  });

  it.skipIf(!optionalCorpus('obsidian-help-en'))(
    'accepts the committed obsidian-help question set against the corpus',
    () => {
      const dataset = loadVaultQuestions(
        'obsidian-help-en',
        corpusPath('obsidian-help-en'),
        join(repoRoot, 'test/fixtures/eval/obsidian-help-questions.json'),
      );
      expect(dataset.queries.length).toBeGreaterThanOrEqual(35);
      expect(dataset.unanswerable?.length).toBeGreaterThan(0);
    },
  );

  it.skipIf(!optionalCorpus('obsidian-help-en'))(
    'accepts both held-out answer-gate sets against the corpus (every judged note exists)',
    () => {
      for (const [file, answerable, nearMisses] of [
        ['obsidian-help-heldout-questions.json', 15, 15],
        ['obsidian-help-gate-heldout-questions.json', 10, 10],
      ] as const) {
        const dataset = loadVaultQuestions(
          'obsidian-help-en',
          corpusPath('obsidian-help-en'),
          join(repoRoot, 'test/fixtures/eval', file),
        );
        expect(dataset.queries).toHaveLength(answerable);
        expect(dataset.nearMiss).toHaveLength(nearMisses);
      }
    },
  );
});

describe.skipIf(!optionalCorpus('cranfield'))('loadCranfield', () => {
  it('reads 1,400 documents and the 225 judged queries with gains 5 − position', () => {
    const dataset = loadCranfield(corpusPath('cranfield'));
    expect(dataset.documents).toHaveLength(1400);
    expect(dataset.queries).toHaveLength(225);
    const gains = new Set(dataset.queries.flatMap((q) => [...q.judgments.values()]));
    expect([...gains].sort()).toEqual([1, 2, 3, 4]);
  });
});

describe('Bm25Engine', () => {
  it('ranks by BM25: rarer terms and shorter documents first, nothing for unknown words', async () => {
    const doc = (id: string, text: string) => ({
      id,
      title: '',
      text,
      path: `${id}.md`,
      aliases: [],
      headings: [],
      raw: text,
    });
    const engine = new Bm25Engine();
    await engine.index([
      doc('a', 'wing lift wing lift'),
      doc('b', 'wing drag'),
      doc('c', 'wing flutter in a long document about many other things entirely'),
    ]);
    expect(await engine.search('drag', 10)).toEqual(['b']);
    expect(await engine.search('wing', 10)).toEqual(['a', 'b', 'c']);
    expect(await engine.search('zeppelin', 10)).toEqual([]);
    expect(await engine.search('wing', 1)).toEqual(['a']);
  });
});
