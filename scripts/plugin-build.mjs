// The esbuild options of the Obsidian plugin bundle, in one place so the release build
// (esbuild.config.mjs) and the bundle smoke test (test/plugin/bundle-smoke.test.ts) build
// exactly the same main.js.
import sveltePlugin from 'esbuild-svelte';
import { builtinModules } from 'node:module';
import { inlineWorkerPlugin } from './inline-worker-plugin.mjs';

/** Provided by Obsidian at run time; bundling a second copy breaks the editor. */
export const PLUGIN_EXTERNALS = [
  'obsidian',
  'electron',
  '@codemirror/autocomplete',
  '@codemirror/collab',
  '@codemirror/commands',
  '@codemirror/language',
  '@codemirror/lint',
  '@codemirror/search',
  '@codemirror/state',
  '@codemirror/view',
  '@lezer/common',
  '@lezer/highlight',
  '@lezer/lr',
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
];

/**
 * @param {{ production: boolean, outfile?: string, plugins?: import('esbuild').Plugin[] }} options
 * @returns {import('esbuild').BuildOptions}
 */
export function pluginBuildOptions({ production, outfile = 'main.js', plugins = [] }) {
  return {
    entryPoints: ['plugin/main.ts'],
    bundle: true,
    external: PLUGIN_EXTERNALS,
    format: 'cjs',
    target: 'es2022',
    platform: 'browser',
    mainFields: ['svelte', 'browser', 'module', 'main'],
    conditions: ['svelte', 'browser'],
    logLevel: 'info',
    sourcemap: production ? false : 'inline',
    treeShaking: true,
    minify: production,
    outfile,
    plugins: [
      sveltePlugin({ compilerOptions: { css: 'external', dev: !production } }),
      // The built-in model's Web Worker, bundled first and imported as text.
      inlineWorkerPlugin(),
      ...plugins,
    ],
  };
}
