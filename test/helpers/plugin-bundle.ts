import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { oncePerRun } from './once-per-run';

/**
 * main.js built with the options esbuild.config.mjs uses (scripts/plugin-build.mjs), so a
 * bundle test loads what users get. Built once per `vitest run` for all bundle tests
 * (once-per-run.ts), then copied to test-output/<name>/main.js so each test file loads its own
 * file. The build takes 5–20 s; call this from `beforeAll` with a long timeout.
 */
export async function buildPluginBundle(
  name: string,
): Promise<{ outfile: string; source: string }> {
  const built = join(await oncePerRun('plugin-bundle', buildMainJs), 'main.js');
  const outfile = resolve('test-output', name, 'main.js');
  mkdirSync(dirname(outfile), { recursive: true });
  copyFileSync(built, outfile);
  return { outfile, source: readFileSync(outfile, 'utf8') };
}

async function buildMainJs(dir: string): Promise<void> {
  const { build } = await import('esbuild');
  const { pluginBuildOptions } = (await import(
    pathToFileURL(resolve('scripts/plugin-build.mjs')).href
  )) as {
    pluginBuildOptions(options: { production: boolean; outfile: string }): Record<string, unknown>;
  };
  await build({
    ...pluginBuildOptions({ production: true, outfile: join(dir, 'main.js') }),
    logLevel: 'warning',
  });
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
