// @vitest-environment node
/**
 * The built-in model arriving while the plugin runs: with the real SearchRunner, SearchService,
 * selectEmbedder and model folder check, search goes from keyword only to hybrid once the
 * model's folder is complete, without a new runner (no plugin restart). The worker is a fake
 * that answers the real protocol with word-bucket vectors: the real model is too slow here.
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USE_LITE_MODEL } from '../../../shared/embeddings/use-lite-model';
import type { BuiltinModelHost } from '../../../plugin/embeddings/builtin-embedder';
import { builtinModelDir } from '../../../plugin/embeddings/builtin-model-folder';
import type {
  EmbeddingWorker,
  FromWorkerMessage,
} from '../../../plugin/embeddings/builtin-worker-protocol';
import { selectEmbedder } from '../../../plugin/embeddings/select-embedder';
import { SearchRunner } from '../../../plugin/search/search-runner';
import { SearchService } from '../../../plugin/search/search-service';
import { defaultSettings } from '../../../shared/settings/cairn-settings';
import { NodeHttpTransport } from '../../helpers/node-http-transport';
import { copyModel, DiskAdapter } from '../embeddings/builtin-test-kit';
import { FakeEmbedder } from './fake-embedder';
import { FakeVault, ManualTimeSlicer } from './fakes';

/** A worker that loads nothing and embeds by hashing words into USE-lite's 512 dims. */
function fakeModelWorker(): EmbeddingWorker & { terminated: boolean; inits: number } {
  const vectors = new FakeEmbedder(USE_LITE_MODEL.id, USE_LITE_MODEL.dims);
  let reply: ((message: FromWorkerMessage) => void) | undefined;
  const worker = {
    terminated: false,
    inits: 0,
    send(message: Parameters<EmbeddingWorker['send']>[0]) {
      setImmediate(() => {
        if (worker.terminated) return;
        if (message.type === 'init') {
          worker.inits++;
          reply?.({ type: 'ready', model: USE_LITE_MODEL });
        } else {
          reply?.({
            type: 'vectors',
            id: message.id,
            vectors: message.texts.map((text) => vectors.vectorOf(text)),
          });
        }
      });
    },
    listen(onMessage: (message: FromWorkerMessage) => void) {
      reply = onMessage;
    },
    terminate() {
      worker.terminated = true;
    },
  };
  return worker;
}

let root: string;
let dir: string;
const runners: SearchRunner[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-runner-'));
  dir = builtinModelDir(`${root}/.obsidian/plugins/cairn`);
});
afterEach(() => {
  for (const runner of runners.splice(0)) runner.close();
  rmSync(root, { recursive: true, force: true });
});

function setUp(vaultKey: string) {
  const workers: ReturnType<typeof fakeModelWorker>[] = [];
  const host: BuiltinModelHost = {
    adapter: new DiskAdapter(),
    dir,
    startWorker: () => {
      const worker = fakeModelWorker();
      workers.push(worker);
      return worker;
    },
  };
  const scheduler = new ManualTimeSlicer();
  const vault = new FakeVault(scheduler, {
    'animals.md': '# Animals\n\nThe quokka lives on Rottnest island.',
    'bank.md': '# Bank\n\nCall the bank about the mortgage.',
  });
  const services: SearchService[] = [];
  const runner = new SearchRunner({
    chooseEmbedder: () => selectEmbedder(defaultSettings('UTC'), new NodeHttpTransport(), host),
    createService: (choice) =>
      new SearchService({
        vaultKey,
        source: vault,
        scheduler,
        excludeGlobs: [],
        embedder: choice.kind === 'active' ? choice.embedder : null,
        ...(choice.kind === 'none' ? { keywordOnlyReason: choice.reason } : {}),
      }),
    onService: (service) => services.push(service),
  });
  runners.push(runner);
  return { runner, services, workers, scheduler, vault };
}

describe('SearchRunner: the built-in model loads without a restart', () => {
  it('switches from keyword only to hybrid once the model folder is complete', async () => {
    const { runner, services, workers, scheduler } = setUp('runner-switch');
    await runner.start();
    const keyword = runner.current!;
    expect(keyword.mode).toBe('keyword');
    expect(keyword.modeLabel).toMatch(/^keyword only \(the built-in model is not installed: /);
    expect((await keyword.search('quokka'))[0]?.citation.path).toBe('animals.md');
    expect(workers).toHaveLength(0);

    // A download completes the folder while the plugin runs.
    copyModel(dir);
    await runner.start();
    const hybrid = runner.current!;
    expect(hybrid).not.toBe(keyword);
    expect(services).toEqual([keyword, hybrid]);
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.modeLabel).toBe(`hybrid: keyword + ${USE_LITE_MODEL.id}`);

    // The new one embeds the vault in the background and then ranks by vectors too.
    scheduler.advance(1_000);
    await hybrid.idle();
    expect(workers).toHaveLength(1);
    expect(workers[0]?.inits).toBe(1);
    const hits = await hybrid.search('quokka island');
    expect(hits[0]).toMatchObject({ mode: 'hybrid', citation: { path: 'animals.md' } });
  });

  it('follows vault events on whichever service is current', async () => {
    const { runner, scheduler, vault } = setUp('runner-events');
    await runner.start();
    copyModel(dir);
    await runner.start();
    vault.write('wombat.md', 'wombats dig burrows');
    runner.fileChanged('wombat.md');
    scheduler.advance(1_000);
    await runner.current!.idle();
    expect((await runner.current!.search('wombats'))[0]?.citation.path).toBe('wombat.md');
  });

  it('releases the model’s worker when replaced or closed, and a start closed mid-choice starts nothing', async () => {
    copyModel(dir);
    const { runner, workers } = setUp('runner-release');
    await runner.start();
    await runner.current!.search('warm up');
    await runner.start();
    await waitUntil(() => workers[0]?.terminated === true);
    expect(workers[1]?.terminated).toBe(false);

    const starting = runner.start();
    runner.close();
    await starting;
    expect(runner.current).toBeNull();
    await waitUntil(() => workers.every((worker) => worker.terminated));
  });
});

/** Polls until `done` (the worker is stopped once its model has loaded). */
async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
}
