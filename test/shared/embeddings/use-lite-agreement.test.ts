/**
 * The vectors of the fast path (batched matmuls through XNNPACK, use-lite-batch-matmul.ts)
 * against plain tfjs on real Markdown: every chunk of a few of the repository's own notes,
 * chunked as the indexer chunks them. A stored index must stay valid across the switch, so each
 * pair must agree to cosine 0.9999 or better (measured: ~0.99999995 on obsidian-help-en).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import { installBatchedMatMul } from '../../../shared/embeddings/use-lite-batch-matmul';
import { chunkNote } from '../../../shared/search/chunk';
import { repoRoot } from '../../helpers/corpora';
import { cosine } from '../../helpers/cosine';

const NOTES = [
  'companion/README.md',
  'companion/search/README.md',
  'companion/sample-vault/Travel/Visa rules.md',
  'companion/sample-vault/Garden.md',
];

function chunkTexts(): string[] {
  return NOTES.flatMap((path) =>
    chunkNote({
      path,
      title: path.split('/').at(-1)?.replace(/\.md$/, '') ?? path,
      aliases: [],
      tags: [],
      body: readFileSync(join(repoRoot, path), 'utf8'),
      bodyStartLine: 1,
    }).map((chunk) => chunk.text),
  );
}

let embedder: UseLiteEmbedder;

beforeAll(async () => {
  embedder = await UseLiteEmbedder.load({ fastMatMul: false });
}, 120_000);

afterAll(() => {
  embedder.dispose();
});

it('gives the same vectors as plain tfjs on every chunk of real notes', async () => {
  const texts = chunkTexts();
  expect(texts.length).toBeGreaterThanOrEqual(24);
  const plain = await embedder.embed(texts);
  const restore = installBatchedMatMul();
  let fast: Float32Array[];
  try {
    fast = await embedder.embed(texts);
  } finally {
    restore();
  }
  const agreement = plain.map((vector, i) => cosine(vector, fast[i] as Float32Array));
  expect(Math.min(...agreement)).toBeGreaterThanOrEqual(0.9999);
  // Not the same numbers by accident: the two paths really ran different kernels.
  const differs = plain.filter((vector, i) => vector.some((x, j) => x !== fast[i]?.[j]));
  expect(differs.length).toBeGreaterThan(0);
}, 120_000);
