// The phone page's build, in one place so the release build (esbuild.config.mjs) and the
// browser test (test/e2e/phone-page.test.ts) produce the same files.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const PHONE_PAGE_SOURCE = 'companion/web';

/** esbuild options: the page script and the service worker, bundled for the browser. */
export function phonePageBuildOptions({ root = '.', outdir, production = false }) {
  const webDir = join(root, PHONE_PAGE_SOURCE);
  const entries = readdirSync(webDir).filter((name) => /^(app|sw)\.ts$/.test(name));
  return {
    entryPoints: entries.map((name) => join(webDir, name)),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    outdir,
    sourcemap: true,
    minify: production,
    logLevel: production ? 'info' : 'warning',
  };
}

/**
 * Copies everything that is not TypeScript (HTML, CSS, manifest, icons) next to the bundles.
 * Folders of modules (views/) are bundled into app.js, so a folder holding only TypeScript is
 * not copied.
 */
export function copyPhonePageStatic({ root = '.', outdir }) {
  const webDir = join(root, PHONE_PAGE_SOURCE);
  if (!existsSync(webDir)) return;
  mkdirSync(outdir, { recursive: true });
  for (const entry of readdirSync(webDir, { withFileTypes: true })) {
    if (entry.name.endsWith('.ts')) continue;
    const from = join(webDir, entry.name);
    if (entry.isDirectory() && !hasStaticFiles(from)) continue;
    cpSync(from, join(outdir, entry.name), {
      recursive: true,
      filter: (source) => !source.endsWith('.ts'),
    });
  }
}

function hasStaticFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).some((entry) =>
    entry.isDirectory() ? hasStaticFiles(join(dir, entry.name)) : !entry.name.endsWith('.ts'),
  );
}
