// esbuild plugin: `import source from 'inline-worker:./x.worker.ts'` bundles x.worker.ts on its
// own (browser, IIFE, minified like the host build) and imports the result as a string. The
// plugin's Web Worker must be one self-contained script: Obsidian loads one main.js, so the
// worker is started from a blob URL of this text (plugin/embeddings/builtin-worker-source.ts).
import esbuild from 'esbuild';
import { dirname, resolve } from 'node:path';

const PREFIX = 'inline-worker:';

/**
 * The worker runs tfjs's wasm backend without threads (they need cross-origin isolation, which
 * Obsidian's window does not have), so its threaded build is replaced by a module that says so.
 * That drops ~55 kB and the pthread helper script, whose Node branch holds `require("fs")` text.
 */
const noWasmThreads = {
  name: 'cairn-no-wasm-threads',
  setup(build) {
    build.onResolve({ filter: /tfjs-backend-wasm-threaded-simd(\.worker)?\.js$/ }, (args) => ({
      path: args.path,
      namespace: 'no-wasm-threads',
    }));
    build.onLoad({ filter: /.*/, namespace: 'no-wasm-threads' }, (args) => ({
      contents: args.path.endsWith('.worker.js')
        ? 'export const wasmWorkerContents = "";'
        : 'export default function threadedSimd() { throw new Error("the wasm backend runs without threads here"); }',
      loader: 'js',
    }));
  },
};

/** @returns {import('esbuild').Plugin} */
export function inlineWorkerPlugin() {
  return {
    name: 'cairn-inline-worker',
    setup(build) {
      const minify = build.initialOptions.minify === true;
      build.onResolve({ filter: /^inline-worker:/ }, (args) => ({
        path: resolve(dirname(args.importer), args.path.slice(PREFIX.length)),
        namespace: 'inline-worker',
      }));
      build.onLoad({ filter: /.*/, namespace: 'inline-worker' }, async (args) => {
        const result = await esbuild.build({
          entryPoints: [args.path],
          bundle: true,
          write: false,
          format: 'iife',
          platform: 'browser',
          target: 'es2022',
          // tfjs's Node-only branches (fs, worker_threads) are mapped away by its `browser` field.
          mainFields: ['browser', 'module', 'main'],
          conditions: ['browser'],
          minify,
          plugins: [noWasmThreads],
          // tfjs's wasm binaries are imported as bytes (base64 in the worker's text), so the
          // code that runs ships inside main.js instead of being downloaded beside the weights.
          loader: { '.wasm': 'binary' },
          metafile: true,
          logLevel: 'silent',
          define: { 'process.env.NODE_ENV': '"production"' },
        });
        const text = result.outputFiles[0].text;
        return {
          contents: `export default ${JSON.stringify(text)};`,
          loader: 'js',
          // Watch mode rebuilds main.js when any file of the worker changes.
          watchFiles: Object.keys(result.metafile.inputs).map((input) => resolve(input)),
          warnings: result.warnings,
        };
      });
    },
  };
}
