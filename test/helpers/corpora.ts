import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in test/helpers/). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The team's corpora live in `shared/` beside the repository (never inside it: they are
 * other people's material). CI clones the repo with that folder next to it, as developers have it.
 */
export function corpusPath(...parts: string[]): string {
  const root = process.env.CAIRN_CORPORA ?? resolve(repoRoot, '../shared/corpora');
  const path = join(root, ...parts);
  if (!existsSync(path)) {
    throw new Error(
      `corpus not found: ${path}. The team folder shared/ must sit beside the repository ` +
        `(or set CAIRN_CORPORA to its corpora/ folder).`,
    );
  }
  return path;
}
