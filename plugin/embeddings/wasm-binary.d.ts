/**
 * `import bytes from '….wasm'`: the file's bytes, embedded at build time by esbuild's `binary`
 * loader (scripts/inline-worker-plugin.mjs). Only the built-in model's worker imports these.
 */
declare module '*.wasm' {
  const bytes: Uint8Array<ArrayBuffer>;
  export default bytes;
}
