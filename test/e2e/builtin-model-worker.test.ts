/**
 * The built-in model's Web Worker as the plugin ships it (bundled by the same esbuild plugin,
 * minified, started from a blob URL of its text) in Chromium: the page reads the model's weights
 * over HTTP, posts them to the worker and embeds one sentence. The vector must match the
 * companion's for the same text, and the wasm binaries must come from the worker's own script
 * (embedded at build time), never from the network.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'esbuild';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../../companion/embeddings/use-lite';
import { useLiteFile } from '../../shared/embeddings/use-lite-files';
import { browserAvailability, launchChromium, type LaunchedBrowser } from '../helpers/browser';
import { installedFile } from '../plugin/embeddings/builtin-test-kit';
import { cosine } from '../helpers/cosine';

const availability = browserAvailability();
const SENTENCE = 'How long can I stay in Portugal without a visa?';

/** The page's script: what main.js does once the folder is read, with fetch in place of the adapter. */
const PAGE_ENTRY = `
import { startBuiltinWorker } from './plugin/embeddings/builtin-worker-source';
import { BuiltinWorkerEmbedder } from './plugin/embeddings/builtin-worker-embedder';
window.embedSentence = async (text) => {
  const get = async (name) => (await fetch('/model/' + name)).arrayBuffer();
  const shards = [];
  for (let i = 1; i <= 7; i++) shards.push(['group1-shard' + i + 'of7', await get('group1-shard' + i + 'of7')]);
  const payload = {
    modelJson: await get('model.json'),
    vocab: await get('vocab.json'),
    shards,
  };
  const embedder = await BuiltinWorkerEmbedder.start(startBuiltinWorker(), payload);
  try {
    const [vector] = await embedder.embed([text]);
    return { model: embedder.model, vector: Array.from(vector) };
  } finally {
    embedder.close();
  }
};
`;

describe.skipIf(!availability.available)('the built-in model worker in Chromium', () => {
  let server: Server;
  let browser: LaunchedBrowser;
  let baseUrl = '';
  /** Every URL the server was asked for. */
  const requested: string[] = [];

  beforeAll(async () => {
    const { build } = await import('esbuild');
    const { inlineWorkerPlugin } = (await import(
      pathToFileURL(resolve('scripts/inline-worker-plugin.mjs')).href
    )) as { inlineWorkerPlugin: () => Plugin };
    const bundle = await build({
      stdin: { contents: PAGE_ENTRY, resolveDir: resolve('.'), loader: 'ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      minify: true,
      plugins: [inlineWorkerPlugin()],
      logLevel: 'warning',
    });
    const pageScript = bundle.outputFiles[0]?.text ?? '';
    server = createServer((request, response) => {
      const url = request.url ?? '/';
      requested.push(url);
      if (url === '/') {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        return response.end('<!doctype html><script src="/page.js"></script>');
      }
      if (url === '/page.js') {
        response.writeHead(200, { 'Content-Type': 'text/javascript' });
        return response.end(pageScript);
      }
      const name = url.startsWith('/model/') ? url.slice('/model/'.length) : '';
      if (!useLiteFile(name)) {
        response.writeHead(404);
        return response.end();
      }
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      response.end(readFileSync(installedFile(name)));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
  });

  it('embeds a sentence off the page thread, like the companion does', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${baseUrl}/`);
    const result = (await page.evaluate(
      (text) =>
        (window as unknown as { embedSentence(t: string): Promise<unknown> }).embedSentence(text),
      SENTENCE,
    )) as { model: { id: string; dims: number }; vector: number[] };
    expect(errors).toEqual([]);
    expect(requested.filter((url) => url.endsWith('.wasm'))).toEqual([]);
    expect(result.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
    expect(result.vector).toHaveLength(512);

    const companion = await UseLiteEmbedder.load();
    try {
      const [expected] = await companion.embed([SENTENCE]);
      expect(cosine(result.vector, expected as Float32Array)).toBeGreaterThan(0.999);
    } finally {
      companion.dispose();
    }
  });
});
