/**
 * The native path (onnxruntime-node on the graph converted from model.json) against the wasm
 * path on real Markdown: every chunk of the sample vault, the test vaults and two READMEs,
 * chunked as the indexer chunks them. A stored index must stay valid when the companion switches
 * runtime, so every pair must agree to cosine 0.9999 or better (measured on obsidian-help-en:
 * min 0.99999994 over 1,106 chunks, docs/embeddings-performance.md).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import {
  UseLiteNativeError,
  UseLiteOnnxEmbedder,
  loadOnnxRuntime,
} from '../../../companion/embeddings/use-lite-onnx';
import { chunkNote } from '../../../shared/search/chunk';
import { locateFrontMatter } from '../../../shared/markdown/front-matter-fence';
import { repoRoot } from '../../helpers/corpora';
import { cosine } from '../../helpers/cosine';

function markdownUnder(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
    .sort();
}

const NOTES = [
  ...markdownUnder('companion/sample-vault'),
  ...markdownUnder('test/fixtures/vaults'),
  'companion/README.md',
  'companion/search/README.md',
];

function chunkTexts(): string[] {
  return NOTES.flatMap((path) => {
    const text = readFileSync(join(repoRoot, path), 'utf8');
    const fence = locateFrontMatter(text);
    return chunkNote({
      path,
      title: path.split('/').at(-1)?.replace(/\.md$/, '') ?? path,
      aliases: [],
      tags: [],
      body: fence ? text.slice(fence.bodyStart) : text,
      bodyStartLine: fence ? fence.bodyStartLine : 1,
    }).map((chunk) => chunk.text);
  });
}

let native: UseLiteOnnxEmbedder;
let wasm: UseLiteEmbedder;
let fetchCalls: unknown[][];

beforeAll(async () => {
  // Nothing may be fetched: the model converts from the files in node_modules.
  const spy = vi.spyOn(globalThis, 'fetch');
  native = await UseLiteOnnxEmbedder.load();
  fetchCalls = spy.mock.calls;
  spy.mockRestore();
  wasm = await UseLiteEmbedder.load();
}, 120_000);

afterAll(async () => {
  await native.dispose();
  wasm.dispose();
});

describe('UseLiteOnnxEmbedder (real USE-lite weights, onnxruntime-node)', () => {
  it('loads from disk without fetching anything, as the same model', () => {
    expect(fetchCalls).toEqual([]);
    expect(native.model).toEqual(wasm.model);
  });

  it('gives the same vectors as the wasm path on every chunk of real notes', async () => {
    const texts = chunkTexts();
    expect(texts.length).toBeGreaterThanOrEqual(40);
    const [fromNative, fromWasm] = [await native.embed(texts), await wasm.embed(texts)];
    const agreement = fromNative.map((vector, i) => cosine(vector, fromWasm[i] as Float32Array));
    expect(agreement).toHaveLength(texts.length);
    expect(Math.min(...agreement)).toBeGreaterThanOrEqual(0.9999);
    for (const vector of fromNative) {
      expect(vector).toHaveLength(512);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    }
  }, 120_000);

  it('agrees on the edge cases the tokenizer makes: empty text, one word, past 128 tokens', async () => {
    const texts = [
      '',
      'x',
      'Canvas files hold cards, arrows and groups. '.repeat(60),
      '😀 émigré 设置',
    ];
    const [fromNative, fromWasm] = [await native.embed(texts), await wasm.embed(texts)];
    fromNative.forEach((vector, i) => {
      expect(cosine(vector, fromWasm[i] as Float32Array)).toBeGreaterThanOrEqual(0.9999);
    });
  });

  it('gives the same vectors in a batch as one text at a time (padding is masked)', async () => {
    const texts = [
      'short',
      'A somewhat longer sentence about linking notes together with wikilinks.',
      'Remind me to call the bank on Monday',
    ];
    const batched = await native.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await native.embed([text]);
      expect(cosine(alone as Float32Array, batched[i] as Float32Array)).toBeGreaterThan(0.999999);
    }
  });

  it('returns one vector per text, in order, each in its own buffer', async () => {
    expect(await native.embed([])).toEqual([]);
    const vectors = await native.embed(['b', 'a', 'b']);
    expect(Array.from(vectors[0] as Float32Array)).toEqual(Array.from(vectors[2] as Float32Array));
    for (const vector of vectors) expect(vector.buffer.byteLength).toBe(512 * 4);
  });

  it('rejects a non-string input', async () => {
    await expect(native.embed(['ok', 3 as unknown as string])).rejects.toThrow(
      'embed: input[1] must be a string, got number',
    );
  });

  it('rejects a batch size that is not a positive integer before loading anything', async () => {
    await expect(UseLiteOnnxEmbedder.load({ batchSize: 0 })).rejects.toThrow(RangeError);
  });

  it('says which runtime module is missing, with a code', async () => {
    expect(() => loadOnnxRuntime('onnxruntime-node-not-installed')).toThrow(UseLiteNativeError);
    await expect(
      UseLiteOnnxEmbedder.load({ runtimeModule: 'onnxruntime-node-not-installed' }),
    ).rejects.toMatchObject({
      code: 'RUNTIME_UNAVAILABLE',
      message: expect.stringContaining('onnxruntime-node-not-installed could not be loaded'),
    });
  });
});
