import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { repoRoot } from './corpora';

interface PhonePageBuildModule {
  phonePageBuildOptions(options: { root: string; outdir: string }): BuildOptions;
  copyPhonePageStatic(options: { root: string; outdir: string }): void;
}

/** Builds the phone page exactly as the release build does, into a temporary folder. */
export async function buildPhonePage(): Promise<{ webRoot: string; remove: () => void }> {
  const { build } = await import('esbuild');
  const buildModule = (await import(
    pathToFileURL(join(repoRoot, 'scripts/phone-page-build.mjs')).href
  )) as PhonePageBuildModule;
  const webRoot = mkdtempSync(join(tmpdir(), 'cairn-web-'));
  await build(buildModule.phonePageBuildOptions({ root: repoRoot, outdir: webRoot }));
  buildModule.copyPhonePageStatic({ root: repoRoot, outdir: webRoot });
  return { webRoot, remove: () => rmSync(webRoot, { recursive: true, force: true }) };
}
