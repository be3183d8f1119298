import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { USE_LITE_MODEL, UseLiteEmbedder } from '../../../companion/embeddings/use-lite';

let embedder: UseLiteEmbedder;
let fetchCalls: unknown[][];

beforeAll(async () => {
  // The model must load with no network at all: any fetch (even of a data: URL) fails the test.
  const spy = vi.spyOn(globalThis, 'fetch');
  embedder = await UseLiteEmbedder.load();
  fetchCalls = spy.mock.calls;
  spy.mockRestore();
});
afterAll(() => embedder.dispose());

const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, x, i) => sum + x * (b[i] ?? NaN), 0);

describe('UseLiteEmbedder (real USE-lite weights from node_modules)', () => {
  it('loads from disk without fetching anything', () => {
    expect(fetchCalls).toEqual([]);
  });

  it('serves the documented model id and 512 unit-length dimensions', async () => {
    expect(embedder.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
    expect(embedder.model).toBe(USE_LITE_MODEL);
    const vectors = await embedder.embed(['A note about gardening.', 'Quarterly invoice']);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(512);
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
  });

  it('places related texts closer than unrelated ones', async () => {
    const [cat, kitten, invoice] = await embedder.embed([
      'The cat sleeps on the sofa.',
      'A kitten naps on the couch.',
      'Please pay the attached invoice by Friday.',
    ]);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, invoice!) + 0.1);
  });

  it('is deterministic', async () => {
    const text = 'Daily notes live in the Journal folder.';
    const [first] = await embedder.embed([text]);
    const [second] = await embedder.embed([text]);
    expect(Array.from(second!)).toEqual(Array.from(first!));
  });

  it('gives the same vectors in one batch as one text at a time', async () => {
    const texts = [
      'short',
      'A somewhat longer sentence about linking notes together with wikilinks.',
      'Canvas files hold cards, arrows and groups. '.repeat(8),
      'Remind me to call the bank on Monday',
    ];
    const batched = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text]);
      const diff = Math.max(
        ...Array.from(alone!, (x, j) => Math.abs(x - (batched[i]?.[j] ?? NaN))),
      );
      expect(diff).toBeLessThan(1e-5);
    }
  });

  it('gives a text the vector it gets alone whatever it is batched with and wherever it sits', async () => {
    // Lengths from 1 token to the model's 128: the graph pads a batch to its longest row, and
    // the embedder reorders texts by length into graph calls; neither may change a vector.
    const long = 'Obsidian keeps every note as a plain Markdown file in your vault folder. ';
    const texts = [
      'bank',
      'Remind me to call the bank on Monday',
      long.repeat(3),
      long.repeat(12),
      'Canvas files hold cards, arrows and groups. '.repeat(6),
    ];
    const alone = new Map<string, Float32Array>();
    for (const text of texts) alone.set(text, (await embedder.embed([text]))[0]!);
    const small = await UseLiteEmbedder.load({ batchSize: 2 });
    try {
      const compositions: Array<[UseLiteEmbedder, string[]]> = [
        [embedder, texts],
        [embedder, [...texts].reverse()],
        [embedder, [texts[3]!, texts[0]!, texts[4]!]],
        // Three graph calls of at most two texts, formed by length, not by position.
        [small, [texts[2]!, texts[0]!, texts[4]!, texts[1]!, texts[3]!]],
      ];
      for (const [model, batch] of compositions) {
        const vectors = await model.embed(batch);
        expect(vectors).toHaveLength(batch.length);
        batch.forEach((text, i) => {
          expect(
            dot(vectors[i]!, alone.get(text)!),
            `${text.slice(0, 20)} at ${i}`,
          ).toBeGreaterThan(0.9999);
        });
      }
    } finally {
      small.dispose();
    }
  });

  it('keeps order and row count when empty strings are anywhere in the batch', async () => {
    const vectors = await embedder.embed(['cat', '', 'dog', '']);
    expect(vectors).toHaveLength(4);
    const [cat] = await embedder.embed(['cat']);
    const [dog] = await embedder.embed(['dog']);
    expect(dot(vectors[0]!, cat!)).toBeCloseTo(1, 5);
    expect(dot(vectors[2]!, dog!)).toBeCloseTo(1, 5);
    // An empty text gets a real unit vector (that of whitespace), not zeros or a dropped row.
    const [space] = await embedder.embed([' ']);
    expect(dot(vectors[1]!, space!)).toBeCloseTo(1, 5);
    expect(dot(vectors[3]!, vectors[3]!)).toBeCloseTo(1, 5);
  });

  it('answers an empty list with an empty list', async () => {
    expect(await embedder.embed([])).toEqual([]);
  });

  it('embeds a 20 kB text as its beginning (the model reads 128 tokens)', async () => {
    const opening = 'Obsidian stores notes as plain Markdown files in a folder on your device. ';
    const long = opening.repeat(Math.ceil(20_000 / opening.length));
    expect(long.length).toBeGreaterThanOrEqual(20_000);
    const [whole] = await embedder.embed([long]);
    const [prefix] = await embedder.embed([long.slice(0, 2_000)]);
    expect(dot(whole!, prefix!)).toBeCloseTo(1, 5);
  });

  it.each([
    { name: 'a number', input: [42] },
    { name: 'null', input: ['ok', null] },
  ])('rejects $name with the index of the bad input', async ({ input }) => {
    await expect(embedder.embed(input as unknown as string[])).rejects.toThrow(
      /input\[\d\] must be a string/,
    );
  });

  it.each([0, -1, 1.5])('refuses batchSize %s', async (batchSize) => {
    await expect(UseLiteEmbedder.load({ batchSize })).rejects.toThrow(/positive integer/);
  });
});
