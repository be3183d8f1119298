// @vitest-environment node
/**
 * The built-in model in the plugin, without Obsidian: the folder check, the download from a
 * real companion app and from a URL served by a real HTTP server (complete, corrupted,
 * interrupted and resumed, missing), and selectEmbedder
 * starting the worker's handler on the real weights.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  unlinkSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { USE_LITE_WEIGHT_FILES } from '../../../shared/embeddings/use-lite-files';
import {
  checkModelFolder,
  builtinModelDir,
  INSTALL_HINT,
} from '../../../plugin/embeddings/builtin-model-folder';
import {
  downloadBuiltinModel,
  type BinaryFetch,
} from '../../../plugin/embeddings/builtin-model-download';
import { selectEmbedder } from '../../../plugin/embeddings/select-embedder';
import { defaultSettings } from '../../../shared/settings/cairn-settings';
import { buildTestApp, TEST_TOKEN, type TestApp } from '../../companion/helpers/app';
import { NodeHttpTransport } from '../../helpers/node-http-transport';
import { DiskAdapter, copyModel, inProcessWorker, installedFile } from './builtin-test-kit';

/** A real HTTP client: Node's fetch. */
const nodeFetch: BinaryFetch = async (url, headers) => {
  const response = await fetch(url, { headers });
  const length = response.headers.get('content-length');
  return {
    status: response.status,
    body: await response.arrayBuffer(),
    ...(length === null ? {} : { contentLength: Number(length) }),
  };
};

let root: string;
let dir: string;
const adapter = new DiskAdapter();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-builtin-'));
  dir = builtinModelDir(`${root}/.obsidian/plugins/cairn/`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the model folder check', () => {
  it('puts the model under the plugin folder', () => {
    expect(builtinModelDir('.obsidian/plugins/cairn')).toBe(
      '.obsidian/plugins/cairn/models/use-lite',
    );
  });

  it('says the model is not installed, and how to install it, when the folder is empty', async () => {
    expect(await checkModelFolder(adapter, dir)).toMatchObject({
      complete: false,
      message: `the built-in model is not installed: ${INSTALL_HINT}`,
    });
  });

  it('is complete with every weight file, and names a missing shard and a short vocabulary', async () => {
    copyModel(dir);
    expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    unlinkSync(`${dir}/group1-shard3of7`);
    truncateSync(`${dir}/vocab.json`, 100);
    const check = await checkModelFolder(adapter, dir);
    expect(check.complete).toBe(false);
    expect(!check.complete && check.message).toBe(
      `the built-in model in ${dir} is incomplete (missing group1-shard3of7; vocab.json is 100 bytes, expected 218327): ${INSTALL_HINT}`,
    );
  });

  it('needs no wasm binary in the folder: they ride in main.js', async () => {
    copyModel(dir);
    unlinkSync(`${dir}/tfjs-backend-wasm.wasm`);
    unlinkSync(`${dir}/tfjs-backend-wasm-simd.wasm`);
    expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    expect(USE_LITE_WEIGHT_FILES.map((f) => f.name)).not.toContain('tfjs-backend-wasm.wasm');
  });
});

describe('downloading the model from the companion', () => {
  let companion: TestApp;
  let url: string;

  beforeAll(async () => {
    companion = await buildTestApp();
    await companion.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(companion.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await companion.close();
  });

  it('fills the folder with checked files, reporting progress, and a second run keeps them', async () => {
    const progress: string[] = [];
    await downloadBuiltinModel({
      adapter,
      dir,
      source: { kind: 'companion', url, token: TEST_TOKEN },
      fetch: nodeFetch,
      onProgress: (p) => progress.push(`${p.index}/${p.count} ${p.file}`),
    });
    expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    expect(progress).toHaveLength(USE_LITE_WEIGHT_FILES.length);
    expect(progress[0]).toBe(`1/${USE_LITE_WEIGHT_FILES.length} model.json`);
    for (const file of USE_LITE_WEIGHT_FILES) {
      expect(
        readFileSync(`${dir}/${file.name}`).equals(readFileSync(installedFile(file.name))),
      ).toBe(true);
    }
    expect(readdirSync(dir).sort()).toEqual(USE_LITE_WEIGHT_FILES.map((f) => f.name).sort());

    const writes = adapter.written.length;
    await downloadBuiltinModel({
      adapter,
      dir,
      source: { kind: 'companion', url, token: TEST_TOKEN },
      fetch: nodeFetch,
    });
    expect(adapter.written.length).toBe(writes);
  });

  it('refuses with the companion’s answer when the token is wrong, writing nothing', async () => {
    await expect(
      downloadBuiltinModel({
        adapter,
        dir,
        source: { kind: 'companion', url, token: 'wrong' },
        fetch: nodeFetch,
      }),
    ).rejects.toThrow(/the companion answered 401 for model\.json/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('an interrupted download', () => {
  let server: Server;
  let url: string;
  const CUT = 'group1-shard3of7';

  beforeAll(async () => {
    // Serves the real files, but the connection drops halfway through one shard.
    server = createServer((request, response) => {
      const name = decodeURIComponent(request.url?.split('/').pop() ?? '');
      const data = readFileSync(installedFile(name));
      response.writeHead(200, { 'Content-Length': String(data.length) });
      if (name !== CUT) return response.end(data);
      response.write(data.subarray(0, data.length / 2), () => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('leaves no file half-written and a folder the check reports incomplete, naming what is missing', async () => {
    await expect(
      downloadBuiltinModel({
        adapter,
        dir,
        source: { kind: 'url', baseUrl: url },
        fetch: nodeFetch,
      }),
    ).rejects.toThrow(`could not download ${CUT}`);
    const check = await checkModelFolder(adapter, dir);
    expect(check.complete).toBe(false);
    expect(!check.complete && check.problems.map((p) => p.name)).toEqual(
      USE_LITE_WEIGHT_FILES.map((f) => f.name).slice(
        USE_LITE_WEIGHT_FILES.findIndex((f) => f.name === CUT),
      ),
    );
    expect(readdirSync(dir).filter((name) => name.endsWith('.download'))).toEqual([]);
    expect(existsSync(`${dir}/${CUT}`)).toBe(false);
  });
});

describe('downloading the model from a URL (a release’s assets)', () => {
  let server: Server;
  let base: string;
  /** What each request asked for: the file name and whether it carried a token. */
  let requests: { name: string; authorization: string | undefined }[];
  /** How the server misbehaves for a file, per test. */
  let faults: Map<string, 'corrupt' | 'missing' | 'cut'>;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '';
      const name = decodeURIComponent(path.split('/').pop() ?? '');
      requests.push({ name, authorization: request.headers.authorization });
      const fault = faults.get(name);
      if (!path.startsWith('/releases/0.1.0/') || fault === 'missing') {
        response.writeHead(404, { 'Content-Type': 'text/plain' });
        return response.end('Not Found');
      }
      const data = Buffer.from(readFileSync(installedFile(name)));
      // Same size, one byte changed: only the SHA-256 can tell.
      if (fault === 'corrupt')
        data.writeUInt8(data.readUInt8(data.length >> 1) ^ 0xff, data.length >> 1);
      response.writeHead(200, { 'Content-Length': String(data.length) });
      if (fault !== 'cut') return response.end(data);
      response.write(data.subarray(0, data.length / 2), () => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/releases/0.1.0`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests = [];
    faults = new Map();
  });

  const download = () =>
    downloadBuiltinModel({
      adapter,
      dir,
      source: { kind: 'url', baseUrl: base },
      fetch: nodeFetch,
    });
  const leftovers = () => readdirSync(dir).filter((name) => name.endsWith('.download'));

  it('fetches every file by its name under the URL, sends no token, and fills the folder', async () => {
    const progress: number[] = [];
    await downloadBuiltinModel({
      adapter,
      dir,
      source: { kind: 'url', baseUrl: base },
      fetch: nodeFetch,
      onProgress: (p) => progress.push(p.doneBytes),
    });
    expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    expect(requests).toEqual(
      USE_LITE_WEIGHT_FILES.map((f) => ({ name: f.name, authorization: undefined })),
    );
    for (const file of USE_LITE_WEIGHT_FILES) {
      expect(
        readFileSync(`${dir}/${file.name}`).equals(readFileSync(installedFile(file.name))),
      ).toBe(true);
    }
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(leftovers()).toEqual([]);
  });

  it('refuses a file whose SHA-256 differs, leaving nothing under its real name', async () => {
    faults.set('vocab.json', 'corrupt');
    await expect(download()).rejects.toThrow(
      /^vocab\.json from 127\.0\.0\.1:\d+ does not match the expected model \(SHA-256 [0-9a-f]{64}\); does the URL hold the files of this plugin version\?$/,
    );
    expect(existsSync(`${dir}/vocab.json`)).toBe(false);
    expect(leftovers()).toEqual([]);
    expect((await checkModelFolder(adapter, dir)).complete).toBe(false);
  });

  it('resumes an interrupted download: the second run fetches only what is missing', async () => {
    const cut = 'group1-shard4of7';
    faults.set(cut, 'cut');
    await expect(download()).rejects.toThrow(`could not download ${cut}`);
    expect(existsSync(`${dir}/${cut}`)).toBe(false);
    expect(leftovers()).toEqual([]);

    faults.clear();
    requests = [];
    await download();
    expect(await checkModelFolder(adapter, dir)).toEqual({ complete: true });
    const names = USE_LITE_WEIGHT_FILES.map((f) => f.name);
    expect(requests.map((r) => r.name)).toEqual(names.slice(names.indexOf(cut)));
  });

  it('names the file and the URL when the server answers 404', async () => {
    faults.set('group1-shard2of7', 'missing');
    await expect(download()).rejects.toThrow(
      `${new URL(base).host} answered 404 for group1-shard2of7 (${base}/group1-shard2of7)`,
    );
    expect(existsSync(`${dir}/group1-shard2of7`)).toBe(false);
  });
});

describe('selectEmbedder with the built-in provider', () => {
  const settings = defaultSettings('UTC');
  const transport = new NodeHttpTransport();
  /** The settings' default provider (builtin) over the test folder, on `worker`. */
  const choose = (worker: ReturnType<typeof inProcessWorker>, folderAdapter = adapter) =>
    selectEmbedder(settings, transport, {
      adapter: folderAdapter,
      dir,
      startWorker: () => worker,
    });

  it('is builtin by default, and keyword-only with the install hint while the folder is empty', async () => {
    expect(settings.embeddings.provider).toBe('builtin');
    const worker = inProcessWorker();
    const choice = await choose(worker);
    expect(choice).toEqual({
      kind: 'none',
      reason:
        'the built-in model is not installed: download it under Settings → Cairn → Search and related notes, or with "Download the built-in model" in the command palette',
    });
  });

  it('runs the worker on a complete folder: the companion’s model id, 512 dims, batches above 32', async () => {
    copyModel(dir);
    const worker = inProcessWorker();
    const choice = await choose(worker);
    if (choice.kind !== 'active') throw new Error(`no embedder: ${choice.reason}`);
    expect(choice.label).toBe('use-lite-512@energetic-ai-0.2.0');
    expect(choice.embedder.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
    const texts = Array.from({ length: 35 }, (_, i) => `reminder ${i}: call the bank`);
    const [vectors, query] = await Promise.all([
      choice.embedder.embed(texts),
      choice.embedder.embed(['kitten']),
    ]);
    expect(vectors).toHaveLength(35);
    expect(vectors.every((v) => v.length === 512)).toBe(true);
    expect(query).toHaveLength(1);
    choice.close?.();
    await expect(choice.embedder.embed(['after close'])).rejects.toThrow(
      'built-in model: the worker was stopped',
    );
    expect(worker.terminated).toBe(true);
  }, 60_000);

  it('answers before the model has loaded: only embedding calls wait for it', async () => {
    copyModel(dir);
    // Reading the model's files is held back until the choice has been made.
    let releaseReads!: () => void;
    const readsReleased = new Promise<void>((resolve) => (releaseReads = resolve));
    const gatedAdapter: typeof adapter = Object.assign(Object.create(adapter) as typeof adapter, {
      readBinary: async (path: string) => {
        await readsReleased;
        return adapter.readBinary(path);
      },
    });
    const worker = inProcessWorker();
    const choice = await choose(worker, gatedAdapter);
    if (choice.kind !== 'active') throw new Error(`no embedder: ${choice.reason}`);
    expect(choice.embedder.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
    expect(choice.embedder.ready).toBe(false);
    const vectors = choice.embedder.embed(['waits for the model']);
    releaseReads();
    expect(await vectors).toHaveLength(1);
    expect(choice.embedder.ready).toBe(true);
    choice.close?.();
  }, 60_000);

  it('closing while the model loads stops the worker once it exists', async () => {
    copyModel(dir);
    const worker = inProcessWorker();
    const choice = await choose(worker);
    if (choice.kind !== 'active') throw new Error(`no embedder: ${choice.reason}`);
    choice.close?.();
    await expect(choice.embedder.embed(['after close'])).rejects.toThrow(
      'built-in model: the worker was stopped',
    );
    expect(worker.terminated).toBe(true);
  }, 60_000);

  it('reports a worker that cannot load the model on every embedding call, and stops it', async () => {
    copyModel(dir);
    const worker = inProcessWorker({ failBackend: 'wasm refused' });
    const choice = await choose(worker);
    if (choice.kind !== 'active') throw new Error(`no embedder: ${choice.reason}`);
    for (const text of ['first', 'second']) {
      await expect(choice.embedder.embed([text])).rejects.toThrow(
        'built-in model: could not load USE-lite: wasm refused',
      );
    }
    expect(worker.terminated).toBe(true);
  });
});
