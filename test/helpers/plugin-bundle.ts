import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Builds main.js with the options esbuild.config.mjs uses (scripts/plugin-build.mjs), so a
 * bundle test loads what users get, into test-output/<name>/main.js (one folder per test file:
 * vitest runs them in parallel). Takes 5–20 s; call it from `beforeAll` with a long timeout.
 */
export async function buildPluginBundle(
  name: string,
): Promise<{ outfile: string; source: string }> {
  const outfile = resolve('test-output', name, 'main.js');
  const { build } = await import('esbuild');
  const { pluginBuildOptions } = (await import(
    pathToFileURL(resolve('scripts/plugin-build.mjs')).href
  )) as {
    pluginBuildOptions(options: { production: boolean; outfile: string }): Record<string, unknown>;
  };
  await build({ ...pluginBuildOptions({ production: true, outfile }), logLevel: 'warning' });
  return { outfile, source: readFileSync(outfile, 'utf8') };
}

/**
 * Waits until `until()` holds, polling every 2 ms for at most `rounds` polls: the built bundle
 * works through timers and promises the test cannot await directly. Returns either way; the
 * test's own assertion says what did not happen.
 */
export async function settle(until: () => boolean, rounds = 400): Promise<void> {
  for (let round = 0; round < rounds && !until(); round++) {
    await new Promise((done) => setTimeout(done, 2));
  }
}
