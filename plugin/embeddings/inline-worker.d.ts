/**
 * `import source from 'inline-worker:./x.worker.ts'`: the worker bundled on its own, as text
 * (scripts/inline-worker-plugin.mjs). Only the plugin build resolves these imports.
 */
declare module 'inline-worker:*' {
  const source: string;
  export default source;
}
