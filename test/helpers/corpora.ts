import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in test/helpers/). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The team's corpora live in `shared/` beside the repository (never inside it: they are other
 * people's material, licensed for local testing only). A bare clone does not have them, so every
 * test that reads one goes through `optionalCorpus` and skips, loudly, where it is missing;
 * CAIRN_REQUIRE_CORPORA=1 (set by .ci/run) turns that skip into a failure.
 */
const corporaRoot = () => process.env.CAIRN_CORPORA ?? resolve(repoRoot, '../shared/corpora');

export const corporaRequired = process.env.CAIRN_REQUIRE_CORPORA === '1';

const warned = new Set<string>();

/** The corpus path, or `undefined` (after one loud warning per corpus) when it is absent. */
export function optionalCorpus(...parts: string[]): string | undefined {
  const path = join(corporaRoot(), ...parts);
  if (existsSync(path)) return path;
  const reason =
    `corpus not found: ${path}. The team folder shared/ must sit beside the repository ` +
    `(or set CAIRN_CORPORA to its corpora/ folder)`;
  if (corporaRequired) {
    throw new Error(`${reason} (CAIRN_REQUIRE_CORPORA=1, so corpus tests may not skip)`);
  }
  if (!warned.has(path)) {
    warned.add(path);
    console.warn(`\n!!! SKIPPING CORPUS TESTS: ${reason} !!!\n`);
  }
  return undefined;
}

/** The corpus path; throws where it is absent. Call it only inside a suite guarded by `optionalCorpus`. */
export function corpusPath(...parts: string[]): string {
  const path = optionalCorpus(...parts);
  if (path === undefined) throw new Error(`corpus not found: ${join(corporaRoot(), ...parts)}`);
  return path;
}
