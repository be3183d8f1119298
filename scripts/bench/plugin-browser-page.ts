/*
 * The page that scripts/bench/plugin-browser.mjs loads into headless Chromium: the plugin's
 * real search stack (DeviceIndexer, SearchStore over the browser's own IndexedDB, the search
 * engine, the browser time slicer) and the real related-notes adapter, over an in-memory vault
 * that the Node side generated and serves. `?phase=index` indexes from scratch; `?phase=restart`
 * (a fresh page load, same profile) restores from the store and then measures search and
 * related notes; `?phase=phone` indexes from scratch with no embedder (on-device keyword search,
 * the phone profile's memory row) and keeps the index alive for the Node side to weigh the heap,
 * then searches when asked (`window.benchPhoneSearch`); any other phase does nothing (a page of
 * the origin to set throttling on).
 * Each phase leaves its numbers in `window.benchResult`.
 *
 * Built with esbuild for the browser; `obsidian` and `.svelte` imports resolve to stubs (the
 * adapter's view class is never instantiated, only its ranking callback runs).
 */
import { TFile } from 'obsidian';
import type { Plugin } from 'obsidian';
import { DeviceIndexer } from '../../plugin/search/device-indexer';
import type { VaultFileStat, VaultSource } from '../../plugin/search/device-indexer';
import { createSearchEngine } from '../../plugin/search/search-engine';
import type { SearchEngine } from '../../plugin/search/search-engine';
import { SearchStore } from '../../plugin/search/search-store';
import { browserTimeSlicer } from '../../plugin/search/time-slicer';
import type { TimeSlicer } from '../../plugin/search/time-slicer';
import { setUpRelatedNotes } from '../../plugin/related/obsidian/related-notes-view';
import { ExcludeRules } from '../../shared/search/exclude-rules';
import { HashEmbedder } from './hash-embedder';
import { percentile } from './stats';

/** What the Node side serves as /list.json: the vault's listing, not its text. */
export interface VaultListing {
  files: Array<VaultFileStat & { tags: string[] }>;
  queries: string[];
  switches: number;
}

export interface Stall {
  /** Longest 'longtask' entry (the browser reports tasks of 50 ms and more). */
  longTaskMs: number;
  /** Latest a 10 ms timer fired after it was due (a task in the way, or no core free). */
  timerLateMs: number;
}

export interface IndexResult {
  phase: 'index';
  indexMs: number;
  stall: Stall;
  notes: number;
  chunks: number;
  problems: number;
  storeBytes: number;
  turns: Turns;
  calibrationMs: number;
  /** The longest tasks, with the indexer's phase when each was seen. */
  longTasks: Array<{ startMs: number; durationMs: number; label: string }>;
}

export interface Latency {
  p50: number;
  p95: number;
}

export interface RestartResult {
  phase: 'restart';
  /** From navigation start (performance.now()'s origin) until the first query answered. */
  answeredMs: number;
  /** When this script began running, from navigation start. */
  scriptStartMs: number;
  /** When the vault listing had arrived, from navigation start. */
  listedMs: number;
  /** When the indexer turned ready (searchable from the snapshot), from navigation start. */
  readyMs: number;
  /** Long tasks until the first answer: start (from navigation start) and duration. */
  longTasks: Array<{ startMs: number; durationMs: number }>;
  /** The longest step of the engine's stepped loads, and the first query's time. */
  longestSteps: Record<string, { ms: number; step: number }>;
  firstQueryMs: number;
  /** Until the first answer: wall time in the store's reads, by method (awaits included). */
  readMs: Record<string, number>;
  /** Until the indexer's start() settled (its diff against the vault found nothing). */
  settledMs: number;
  stall: Stall;
  reads: number;
  embedded: number;
  hybrid: Latency;
  keyword: Latency;
  related: Latency & { max: number; shownAvg: number };
  turns: Turns;
  calibrationMs: number;
}

/** Where a first index stands (read by the Node side when it stops waiting for it). */
export interface IndexProgressReport {
  elapsedMs: number;
  stall: Stall;
  phase: string;
  done: number;
  total: number;
}

/** The phone profile's keyword-only first index (the heap is weighed by the Node side). */
export interface PhoneIndexResult {
  phase: 'phone';
  indexMs: number;
  notes: number;
  chunks: number;
  problems: number;
}

declare global {
  interface Window {
    benchResult?: Promise<IndexResult | RestartResult | PhoneIndexResult>;
    benchProgress?: () => IndexProgressReport;
    /** Runs every query on the phone phase's index (kept alive until the page goes). */
    benchPhoneSearch?: () => Promise<Latency>;
  }
}

const scriptStartMs = performance.now();

/** Longest main-thread stall since the last reset: long tasks and a late-timer monitor. */
class StallMonitor {
  private since = 0;
  private longTask = 0;
  private late = 0;
  /** The long tasks since the last reset, for where a stall falls. */
  readonly tasks: Array<{ startMs: number; durationMs: number; label: string }> = [];
  /** Names what was running when a long task is seen (observed just after it ends). */
  label: () => string = () => '';

  constructor() {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.startTime < this.since) continue;
        this.longTask = Math.max(this.longTask, entry.duration);
        this.tasks.push({
          startMs: entry.startTime,
          durationMs: entry.duration,
          label: this.label(),
        });
      }
    }).observe({ type: 'longtask', buffered: true });
    const tick = (due: number) => {
      this.late = Math.max(this.late, performance.now() - due);
      const next = performance.now() + 10;
      setTimeout(() => tick(next), 10);
    };
    tick(performance.now());
  }

  reset(): void {
    this.since = performance.now();
    this.longTask = 0;
    this.late = 0;
    this.tasks.length = 0;
  }

  read(): Stall {
    return { longTaskMs: this.longTask, timerLateMs: this.late };
  }
}
const monitor = new StallMonitor();

/** The generated vault in memory, as the indexer's VaultSource; counts reads. */
class MemoryVault implements VaultSource {
  reads = 0;
  private readonly stats: Map<string, VaultFileStat>;
  private texts: Promise<Record<string, string>> | undefined;

  constructor(listing: VaultListing, texts?: Record<string, string>) {
    this.stats = new Map(
      listing.files.map(({ path, mtime, size }) => [path, { path, mtime, size }]),
    );
    if (texts) this.texts = Promise.resolve(texts);
  }

  list(): VaultFileStat[] {
    return [...this.stats.values()];
  }

  stat(path: string): VaultFileStat | null {
    return this.stats.get(path) ?? null;
  }

  /** Drops the texts held in memory (a later read fetches them again). */
  forgetTexts(): void {
    this.texts = undefined;
  }

  async read(path: string): Promise<string> {
    this.reads++;
    this.texts ??= fetchJson<Record<string, string>>('/texts.json');
    const text = (await this.texts)[path];
    if (text === undefined) throw new Error(`no such note: ${path}`);
    return text;
  }
}

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

/**
 * A fixed amount of arithmetic, to show the CPU throttling took effect in this page (long
 * enough that the throttler's pauses cannot fall between its runs).
 */
function calibrate(): number {
  const started = performance.now();
  let x = 0;
  for (let run = 0; run < 5; run++) {
    for (let i = 0; i < 5_000_000; i++) x = (x + Math.imul(i, 2654435761)) | 0;
  }
  if (x === 42) console.log(x);
  return performance.now() - started;
}

/** UI turns the indexer took and the time it spent waiting in them. */
interface Turns {
  count: number;
  waitMs: number;
}

/** The plugin's browser time slicer, counting its UI turns. */
function countingSlicer(turns: Turns): TimeSlicer {
  const slicer = browserTimeSlicer(window);
  return {
    ...slicer,
    yieldToUi: async () => {
      const started = performance.now();
      await slicer.yieldToUi();
      turns.count++;
      turns.waitMs += performance.now() - started;
    },
  };
}

interface Indexed {
  store: SearchStore;
  engine: SearchEngine;
  indexer: DeviceIndexer;
  /** Problems the indexer reported (none expected). */
  problems: { count: number };
  turns: Turns;
  /** The indexer's start(): restore, diff, index, embed, snapshot. */
  started: Promise<void>;
}

/** The longest synchronous step of each of the engine's stepped loads, for where a stall is. */
const longestSteps: Record<string, { ms: number; step: number }> = {};

function timeSteps(engine: SearchEngine): SearchEngine {
  for (const name of ['loadSnapshotInSteps', 'loadSnapshotVectorsInSteps'] as const) {
    const load = engine[name].bind(engine);
    engine[name] = function* (snapshot: unknown) {
      const steps = load(snapshot);
      for (let step = 0; ; step++) {
        const started = performance.now();
        const next = steps.next();
        const ms = performance.now() - started;
        if (ms > (longestSteps[name]?.ms ?? 0)) longestSteps[name] = { ms, step };
        if (next.done) return;
        yield;
      }
    };
  }
  return engine;
}

async function openIndex(
  vault: MemoryVault,
  embedder: HashEmbedder | null,
  watch?: (store: SearchStore) => void,
): Promise<Indexed> {
  const store = await SearchStore.open('bench');
  watch?.(store);
  const engine = timeSteps(createSearchEngine({ embedder }));
  const problems = { count: 0 };
  const turns = { count: 0, waitMs: 0 };
  const indexer = new DeviceIndexer({
    source: vault,
    store,
    engine,
    embedder,
    scheduler: countingSlicer(turns),
    exclude: new ExcludeRules([]),
    onProblem: () => problems.count++,
  });
  return { store, engine, indexer, problems, turns, started: indexer.start() };
}

async function indexPhase(): Promise<IndexResult> {
  const listing = await fetchJson<VaultListing>('/list.json');
  const texts = await fetchJson<Record<string, string>>('/texts.json');
  const vault = new MemoryVault(listing, texts);
  const calibrationMs = calibrate();
  monitor.reset();
  const started = performance.now();
  const index = await openIndex(vault, new HashEmbedder());
  window.benchProgress = () => ({
    elapsedMs: performance.now() - started,
    stall: monitor.read(),
    ...index.indexer.state,
  });
  // The snapshot is taken and written inside the indexer's last phase: named apart.
  let snapshotting = false;
  const takeSnapshot = index.engine.takeSnapshot.bind(index.engine);
  index.engine.takeSnapshot = (contentHashOf) => {
    snapshotting = true;
    return takeSnapshot(contentHashOf);
  };
  const putSnapshot = index.store.putSnapshot.bind(index.store);
  index.store.putSnapshot = async (...args) => {
    try {
      return await putSnapshot(...args);
    } finally {
      snapshotting = false;
    }
  };
  monitor.label = () => `${index.indexer.state.phase}${snapshotting ? ' (snapshot)' : ''}`;
  await index.started;
  const indexMs = performance.now() - started;
  const stall = monitor.read();
  const longTasks = [...monitor.tasks]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 8)
    .map((task) => ({ ...task, startMs: task.startMs - started }));
  monitor.label = () => '';
  index.store.close();
  const estimate = await navigator.storage.estimate();
  return {
    phase: 'index',
    indexMs,
    stall,
    notes: index.engine.noteCount,
    chunks: index.engine.size,
    problems: index.problems.count,
    storeBytes: estimate.usage ?? 0,
    turns: index.turns,
    calibrationMs,
    longTasks,
  };
}

async function searchLatency(engine: SearchEngine, queries: readonly string[]): Promise<Latency> {
  for (const query of queries.slice(0, 10)) await engine.search(query, { limit: 10 });
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await engine.search(query, { limit: 10 });
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

/**
 * The related-notes adapter (plugin/related/obsidian/) on a stand-in app whose metadata cache
 * holds the listing's tags and a link graph (note i links to i+1, i+7 and i+31, in path order).
 * A switch is the workspace's 'file-open' event; the time is from the adapter asking the index
 * for candidates to the view's state being ready (the 120 ms switch delay before it excluded).
 */
async function relatedSwitches(
  engine: SearchEngine,
  listing: VaultListing,
): Promise<Latency & { max: number; shownAvg: number }> {
  const files = listing.files.map(({ path }) => {
    const file = new TFile();
    file.path = path;
    file.extension = 'md';
    file.basename = path.slice(path.lastIndexOf('/') + 1, -'.md'.length);
    return file;
  });
  const byPath = new Map(files.map((file) => [file.path, file]));
  const tags = new Map(listing.files.map(({ path, tags }) => [path, tags]));
  const resolvedLinks: Record<string, Record<string, number>> = {};
  files.forEach((file, i) => {
    resolvedLinks[file.path] = Object.fromEntries(
      [1, 7, 31].map((step) => [files[(i + step) % files.length]!.path, 1]),
    );
  });
  let active: TFile | null = null;
  let fileOpen: () => void = () => {};
  let askedAt = 0;
  const app = {
    workspace: {
      getLeavesOfType: () => [{}],
      getActiveFile: () => active,
      on: (_name: string, handler: () => void) => {
        fileOpen = handler;
        return {};
      },
      onLayoutReady: (fn: () => void) => fn(),
    },
    metadataCache: {
      resolvedLinks,
      on: () => ({}),
      getFileCache: (file: TFile) => ({ frontmatter: { tags: tags.get(file.path) ?? [] } }),
    },
    vault: {
      getAbstractFileByPath: (path: string) => byPath.get(path) ?? null,
      getMarkdownFiles: () => files,
    },
  };
  const plugin = {
    app,
    register: () => {},
    registerHoverLinkSource: () => {},
    registerView: () => {},
    addCommand: () => {},
    registerEvent: () => {},
  } as unknown as Plugin;
  const controller = setUpRelatedNotes(plugin, {
    relatedChunks: (path, limit) => {
      askedAt = performance.now();
      return engine.relatedChunks(path, limit);
    },
    searchStatus: () => ({ ready: true, mode: 'hybrid', modeLabel: 'hybrid', progress: '' }),
  });
  const times: number[] = [];
  let shown = 0;
  for (let s = 0; s < listing.switches; s++) {
    const file = files[(s * 7919) % files.length]!;
    await new Promise<void>((done) => {
      const unsubscribe = controller.state.subscribe((state) => {
        if (state.kind !== 'ready' || state.path !== file.path) return;
        times.push(performance.now() - askedAt);
        shown += state.notes.length;
        queueMicrotask(() => unsubscribe());
        done();
      });
      active = file;
      fileOpen();
    });
  }
  controller.dispose();
  return {
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    max: Math.max(...times),
    shownAvg: shown / listing.switches,
  };
}

/** Wall time spent in the store's read calls (awaits included), for where a restart goes. */
const RESTORE_READS = [
  'readSnapshotDeferringVectors',
  'countFiles',
  'filesAfter',
  'getFiles',
  'vectorsFor',
] as const;

function timeReads(store: SearchStore, spent: Record<string, number>): void {
  for (const name of RESTORE_READS) {
    const read = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    Object.assign(store, {
      [name]: async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await read(...args);
        } finally {
          spent[name] = (spent[name] ?? 0) + performance.now() - started;
        }
      },
    });
  }
}

async function restartPhase(): Promise<RestartResult> {
  monitor.reset();
  const listing = await fetchJson<VaultListing>('/list.json');
  const listedMs = performance.now();
  const vault = new MemoryVault(listing);
  const embedder = new HashEmbedder();
  const storeReadMs: Record<string, number> = {};
  const index = await openIndex(vault, embedder, (store) => timeReads(store, storeReadMs));
  while (!index.indexer.ready) await new Promise((done) => setTimeout(done, 0));
  const readyMs = performance.now();
  const beforeQuery = embedder.texts;
  await index.engine.search(listing.queries[0]!, { limit: 10 });
  const answeredMs = performance.now();
  const firstQueryMs = answeredMs - readyMs;
  const stall = monitor.read();
  const longTasks = [...monitor.tasks];
  const readMs = { ...storeReadMs };
  const queryTexts = embedder.texts - beforeQuery;
  await index.started;
  const settledMs = performance.now();
  const reads = vault.reads;
  // Texts the indexer embedded: the query's own embedding is not one of them.
  const embedded = embedder.texts - queryTexts;
  const hybrid = await searchLatency(index.engine, listing.queries);
  const related = await relatedSwitches(index.engine, listing);
  index.indexer.stop();
  index.store.close();
  // The same store without an embedder: what a keyword-only setup answers in.
  const keywordIndex = await openIndex(vault, null);
  await keywordIndex.started;
  const keyword = await searchLatency(keywordIndex.engine, listing.queries);
  keywordIndex.indexer.stop();
  keywordIndex.store.close();
  return {
    phase: 'restart',
    answeredMs,
    scriptStartMs,
    listedMs,
    readyMs,
    longTasks,
    longestSteps: { ...longestSteps },
    firstQueryMs,
    readMs,
    settledMs,
    stall,
    reads,
    embedded,
    hybrid,
    keyword,
    related,
    turns: index.turns,
    calibrationMs: calibrate(),
  };
}

/**
 * A first index with no embedder, as a phone with on-device keyword search has: the vault's
 * texts are dropped once indexed (Obsidian holds them on disk, not in the heap), the index stays
 * referenced so the heap the Node side weighs is what the plugin keeps.
 */
async function phonePhase(): Promise<PhoneIndexResult> {
  const listing = await fetchJson<VaultListing>('/list.json');
  const vault = new MemoryVault(listing, await fetchJson<Record<string, string>>('/texts.json'));
  const started = performance.now();
  const index = await openIndex(vault, null);
  await index.started;
  const indexMs = performance.now() - started;
  window.benchPhoneSearch = () => searchLatency(index.engine, listing.queries);
  vault.forgetTexts();
  return {
    phase: 'phone',
    indexMs,
    notes: index.engine.noteCount,
    chunks: index.engine.size,
    problems: index.problems.count,
  };
}

const phase = new URLSearchParams(location.search).get('phase');
if (phase === 'index') window.benchResult = indexPhase();
else if (phase === 'restart') window.benchResult = restartPhase();
else if (phase === 'phone') window.benchResult = phonePhase();
