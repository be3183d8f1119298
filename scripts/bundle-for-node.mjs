// The TypeScript behind a benchmark or an evaluation, bundled for Node so the script runs the
// repository's code as it is without a full build. Output goes to node_modules/.cache/<name>/
// (inside the repository, so the bundles' package imports resolve); npm packages stay external.
import esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = resolve(fileURLToPath(import.meta.url), '../..');

/**
 * Bundles `entryPoints` (repository-relative paths, or `{ outName: path }`) into
 * node_modules/.cache/<cacheName>/<name>.mjs and returns a loader for them by name.
 * `withRequire` adds a CommonJS `require` for bundled code that calls it (pdf.js, better-sqlite3).
 */
export async function bundleForNode(cacheName, entryPoints, { withRequire = false } = {}) {
  const outdir = join(repo, 'node_modules/.cache', cacheName);
  mkdirSync(outdir, { recursive: true });
  const absolute = Array.isArray(entryPoints)
    ? entryPoints.map((path) => join(repo, path))
    : Object.fromEntries(
        Object.entries(entryPoints).map(([name, path]) => [name, join(repo, path)]),
      );
  await esbuild.build({
    entryPoints: absolute,
    ...(Array.isArray(entryPoints) ? { entryNames: '[name]' } : {}),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    ...(withRequire
      ? {
          banner: {
            js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);",
          },
        }
      : {}),
  });
  return {
    outdir,
    load: (name) => import(pathToFileURL(join(outdir, `${name}.mjs`)).href),
  };
}
