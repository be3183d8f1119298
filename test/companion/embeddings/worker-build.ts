/**
 * Builds a `*.worker.ts` entry into a runnable .mjs for tests, with the same esbuild settings as
 * the companion build (esbuild.config.mjs). Worker threads run plain JavaScript, so tests cannot
 * point a Worker at TypeScript source.
 *
 * The output goes under node_modules/.cache/ inside the repository (not /tmp) so that the
 * bundle's external imports (`@tensorflow/tfjs-core`, …) resolve from the repository's
 * node_modules. Each call gets its own folder: test files run in parallel.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import esbuild from 'esbuild';
import { repoRoot } from '../../helpers/corpora';

export async function buildWorkerForTest(entry: string): Promise<URL> {
  const cache = join(repoRoot, 'node_modules', '.cache', 'cairn-test-workers');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'build-'));
  const outfile = join(outdir, basename(entry).replace(/\.ts$/, '.mjs'));
  await esbuild.build({
    entryPoints: [join(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    banner: {
      js: "import { createRequire as __cairnCreateRequire } from 'node:module'; const require = __cairnCreateRequire(import.meta.url);",
    },
  });
  return pathToFileURL(outfile);
}
