/**
 * The deterministic multi-device simulation of Cairn Sync (`npm run sync-sim`, docs/sync.md).
 *
 * One run: the real companion (`buildApp` + SyncService over a temporary vault folder and SQLite
 * file) and 2–5 devices, each the real plugin engine (plugin/sync/) over an in-memory vault (some
 * case-insensitive) with its own skewed clock. Every request goes through a network shim the run
 * schedules: requests and answers are delivered in random order, dropped, duplicated and
 * delayed. Devices crash at any port call (before or after it took effect; also after the
 * companion committed and before the device recorded it), reopen (creating the daily note),
 * go offline; the companion restarts; another program edits its vault folder. Everything random
 * comes from one seeded generator and each step runs to quiescence, so a seed replays the run.
 *
 * `--trace` prints the run; with SIM_TRACE_ALL=1 also every request, vault write and state update
 * of every device (what finding a failure's cause takes).
 *
 * Then the network heals, every device syncs until nothing changes, and the run is checked:
 * lost (a line someone wrote that is nowhere, though nobody who had seen it removed it),
 * diverged (a device's files differ from the companion's), resurrected (a deleted note back
 * though nobody edited it concurrently or after; a note is the files with its header, so a
 * device that deleted one of two, its conflict copy on the same disk, kept the other), false
 * conflicts (a conflict copy where the edits did not overlap: the workload only ever edits a
 * device's own lines, each followed by a line nobody touches, so only two notes made at one
 * path may conflict).
 */
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../plugin/connection/http-transport';
import { MemorySyncStateStore } from '../../plugin/sync/memory-state-store';
import { CompanionSyncClient } from '../../plugin/sync/sync-client';
import { SyncEngine } from '../../plugin/sync/sync-engine';
import type { SyncEvent } from '../../plugin/sync/sync-engine';
import type { SyncFileRecord, SyncStateStore, SyncVault } from '../../plugin/sync/sync-ports';
import { MemoryVault } from '../../test/fakes/memory-vault';
import { CompanionHost, SIM_TOKEN, SharedCompanionApp } from './companion-host';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// ---------------------------------------------------------------------------------------------
// Randomness

export class Rng {
  private state: number;
  /** How many numbers were drawn (part of a run's digest: the same scenario draws as many). */
  draws = 0;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32 */
  next(): number {
    this.draws++;
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.int(items.length)];
  }
}

// ---------------------------------------------------------------------------------------------
// Results

export interface RunResult {
  readonly seed: number;
  readonly ops: number;
  readonly devices: number;
  readonly lost: string[];
  readonly diverged: string[];
  readonly resurrected: string[];
  readonly falseConflicts: string[];
  /** An exception that ended the run (a failure too). */
  readonly error?: string;
  /**
   * With `digest: true`: a hash of what the run did and ended with (every trace line, the
   * numbers drawn, every vault's files and every device's events), so two versions of the
   * harness can be shown to replay each seed alike.
   */
  readonly digest?: string;
}

export function failed(result: RunResult): boolean {
  return (
    result.error !== undefined ||
    result.lost.length +
      result.diverged.length +
      result.resurrected.length +
      result.falseConflicts.length >
      0
  );
}

export interface RunOptions {
  /** The companion app to run against; one is built (and closed) for the run when absent. */
  readonly app?: SharedCompanionApp;
  /** Most user operations in the run (fewer when shrinking). */
  readonly maxOps?: number;
  /** Fault rates scale (0 = a perfect network and no crashes). */
  readonly faults?: number;
  /**
   * The engines' `blobsPerBatch`. 1 by default: one `GET blobs` per download and no looking
   * ahead, the request and port-call sequence the recorded seeds (test/scripts/sync-sim/) were
   * found with; batching (`POST blobs/batch`) changes every interleaving after the first pull,
   * so it is run on its own (`--blob-batch 256`).
   */
  readonly blobsPerBatch?: number;
  readonly trace?: (line: string) => void;
  /** Adds `digest` to the result. */
  readonly digest?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The world of one run

const START = Date.parse('2026-11-22T09:00:00Z');
const DAILY = 'Daily/2026-11-22.md';
const DAILY_TEMPLATE = '# Daily\n';
const NAMES = [
  'Inbox',
  'inbox',
  'Trip',
  'Ideas',
  'Projects/Plan',
  'projects/plan',
  'Log',
  'Shopping',
  'Notes/Meeting',
];

class SimClock {
  now = START;
  advance(ms: number): void {
    this.now += ms;
  }
}

class Bookkeeping {
  tokens = 0;
  /** token → who wrote it. */
  readonly written = new Map<string, string>();
  /** Tokens their writer (or a device deleting their note, having seen them) removed. */
  readonly removed = new Set<string>();
  /** Case-folded note path → who created a note (or renamed one) there. */
  readonly creations = new Map<string, Set<string>>();
  /** Case-folded note path → when (`clock`) notes were created (or renamed) there. */
  readonly creationTimes = new Map<string, number[]>();
  /** Header → every case-folded path a note with it was made at or moved from or to. */
  readonly pathsOf = new Map<string, Set<string>>();
  /**
   * Notes deleted by a device: their header, the tokens the device's copy had, the case-folded
   * path, every path the note had (`pathsOf`, that one too), when (`clock`), and how many other
   * files with its header the device kept (a conflict copy of it beside the note, say).
   */
  readonly deletions: {
    device: string;
    header: string;
    tokens: Set<string>;
    path: string;
    paths: Set<string>;
    at: number;
    kept: number;
  }[] = [];
  /** Header → every token ever written into a note with it. */
  readonly headerTokens = new Map<string, Set<string>>();
  /** Header → the lines devices removed from a note with it (edits adding none), and when. */
  readonly removals = new Map<string, { token: string; at: number }[]>();
  /** Counts the user operations, so the checks can tell which came after which. */
  clock = 0;

  token(by: string, header: string): string {
    const token = `L${++this.tokens}`;
    this.written.set(token, by);
    let set = this.headerTokens.get(header);
    if (!set) this.headerTokens.set(header, (set = new Set()));
    set.add(token);
    return token;
  }

  /** A note made at `path` (or moved there `from` another), its header when it has its own. */
  created(path: string, by: string, header?: string, from?: string): void {
    const key = path.toLowerCase();
    if (header !== undefined) {
      let known = this.pathsOf.get(header);
      if (!known) this.pathsOf.set(header, (known = new Set()));
      known.add(key);
      if (from !== undefined) known.add(from.toLowerCase());
    }
    let set = this.creations.get(key);
    if (!set) this.creations.set(key, (set = new Set()));
    set.add(by);
    const times = this.creationTimes.get(key) ?? [];
    this.creationTimes.set(key, [...times, ++this.clock]);
  }

  deleted(device: string, path: string, text: string, kept: number): void {
    const header = headerOf(text);
    this.deletions.push({
      device,
      header,
      tokens: new Set(tokensOf(text)),
      path: path.toLowerCase(),
      paths: new Set([path.toLowerCase(), ...(this.pathsOf.get(header) ?? [])]),
      at: ++this.clock,
      kept,
    });
  }

  removedLine(header: string, token: string): void {
    const removals = this.removals.get(header) ?? [];
    this.removals.set(header, [...removals, { token, at: ++this.clock }]);
  }
}

/** The header line (`# H12`) of a note's text, after any front matter. */
function headerOf(text: string): string {
  for (const line of text.split('\n')) if (line.startsWith('# ')) return line;
  return '';
}

function tokensOf(text: string): string[] {
  return [...text.matchAll(/^- (L\d+) /gm)].map((match) => match[1] as string);
}

/** A slot: the token line (`- L7 phone`) and a line nobody ever edits (`~7`). */
function slot(token: string, by: string): string {
  return `- ${token} ${by}\n~${token.slice(1)}\n`;
}

interface PendingRequest {
  readonly device: SimDevice;
  readonly epoch: number;
  readonly request: HttpRequest;
  readonly resolve: (response: HttpResponse) => void;
  readonly reject: (error: Error) => void;
}

interface PendingAnswer {
  readonly pending: PendingRequest;
  readonly response: HttpResponse;
}

class World {
  readonly clock = new SimClock();
  readonly host: CompanionHost;
  readonly book = new Bookkeeping();
  readonly devices: SimDevice[] = [];
  readonly requests: PendingRequest[] = [];
  readonly answers: PendingAnswer[] = [];
  readonly ghosts: HttpRequest[] = [];
  /** Off while healing: requests are answered at once and nothing fails. */
  faultsOn = true;
  /** Set when a device did what the simulation cannot run (the run then ends with it). */
  broken: string | undefined;
  ops = 0;

  constructor(
    shared: SharedCompanionApp,
    readonly rng: Rng,
    readonly faults: number,
    readonly trace: (line: string) => void,
    readonly blobsPerBatch = 1,
  ) {
    this.host = new CompanionHost(shared, { now: () => this.clock.now });
  }

  readonly timing = new Map<string, { count: number; ms: number }>();

  async serve(request: HttpRequest): Promise<HttpResponse> {
    const startedAt = performance.now();
    try {
      const response = await this.serveNow(request);
      // SIM_TRACE_ALL=1 with --trace: every request too, changes pages in short.
      if (process.env.SIM_TRACE_ALL === '1' && !request.url.endsWith('/commit')) {
        const devName = /device=([^&]+)/.exec(request.url)?.[1] ?? '';
        this.trace(
          `  ${devName} ${request.method} ${request.url.split('/sync/').pop() ?? ''} → ${response.status} ${request.url.includes('/changes') ? response.text.replace(/"hash":"(\w{6})\w+"/g, '"hash":"$1"') : ''}`,
        );
      }
      if (request.url.endsWith('/commit') || request.url.endsWith('/confirm')) {
        this.trace(
          `  ${request.method} ${request.url.split('/').pop() ?? ''} ${String(request.body)} → ${response.text}`,
        );
      }
      return response;
    } finally {
      const kind = `${request.method} ${new URL(request.url).pathname.split('/').slice(4, 5).join('')}`;
      const entry = this.timing.get(kind) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += performance.now() - startedAt;
      this.timing.set(kind, entry);
    }
  }

  private async serveNow(request: HttpRequest): Promise<HttpResponse> {
    const url = new URL(request.url);
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) {
      headers['content-type'] =
        typeof request.body === 'string' ? 'application/json' : 'application/octet-stream';
    }
    const response = await this.host.app.inject({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      ...(request.body === undefined
        ? {}
        : { payload: typeof request.body === 'string' ? request.body : Buffer.from(request.body) }),
    });
    const raw = response.rawPayload;
    return {
      status: response.statusCode,
      text: response.body,
      ...(request.responseType === 'bytes'
        ? {
            bytes: raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer,
          }
        : {}),
    };
  }
}

class SimDevice {
  readonly vault: MemoryVault;
  readonly store = new MemorySyncStateStore();
  readonly events: SyncEvent[] = [];
  engine: SyncEngine | null = null;
  /** Bumped by every crash: calls of an older engine never return. */
  epoch = 0;
  online = true;
  task: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private ids = 0;

  constructor(
    readonly world: World,
    readonly name: string,
    caseInsensitive: boolean,
    readonly skewMs: number,
  ) {
    this.vault = new MemoryVault(caseInsensitive, { now: () => world.clock.now + skewMs });
    this.vault.onEvent((event) => {
      if (!this.engine) return;
      if (event.kind === 'changed') this.engine.noteChanged(event.path);
      else this.engine.noteRenamed(event.from, event.to);
    });
  }

  get isOpen(): boolean {
    return this.engine !== null;
  }

  /** Resolves when this device next sends a request, finishes its pass, or crashes. */
  activity(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  open(): void {
    const epoch = this.epoch;
    const guard = <T>(work: () => Promise<T>): Promise<T> => this.guarded(epoch, work);
    const vault = this.vault;
    const store = this.store;
    const guardedVault: SyncVault = {
      caseInsensitive: vault.caseInsensitive,
      list: () => guard(() => vault.list()),
      stat: (path) => guard(() => vault.stat(path)),
      read: (path) => guard(() => vault.read(path)),
      write: (path, bytes, expect) =>
        guard(() => vault.write(path, bytes, expect)).then(
          (r) => (
            this.dbg(
              `write ${path} ${JSON.stringify(expect).slice(0, 20)} → ${typeof r === 'string' ? r : r.path}`,
            ),
            r
          ),
        ),
      rename: (from, to) =>
        guard(() => vault.rename(from, to)).then(
          (r) => (this.dbg(`rename ${from} → ${to}: ${r}`), r),
        ),
      delete: (path, hash) =>
        guard(() => vault.delete(path, hash)).then((r) => (this.dbg(`delete ${path}: ${r}`), r)),
    };
    const guardedStore: SyncStateStore = {
      getFile: (path) => guard(() => store.getFile(path)),
      findByFileId: (id) => guard(() => store.findByFileId(id)),
      allFiles: () => guard(() => store.allFiles()),
      update: (put: readonly SyncFileRecord[], remove?: readonly string[]) =>
        guard(() => store.update(put, remove)).then(() =>
          this.dbg(
            `store put ${put.map((r) => `${r.path}[${r.fileId?.slice(0, 4)} base ${r.base?.slice(0, 6)} synced ${r.syncedPath} seq ${r.seq} sh ${r.shadowedSeq}]`).join(', ')} remove ${(remove ?? []).join(',')}`,
          ),
        ),
      setSeq: (seq) => guard(() => store.setSeq(seq)).then(() => this.dbg(`setSeq ${seq}`)),
      getSeq: () => guard(() => store.getSeq()),
      getPendingCommit: () => guard(() => store.getPendingCommit()),
      setPendingCommit: (pending) => guard(() => store.setPendingCommit(pending)),
      close: () => undefined,
    };
    const transport: HttpTransport = { request: (request) => this.send(epoch, request) };
    this.engine = new SyncEngine({
      vault: guardedVault,
      store: guardedStore,
      api: new CompanionSyncClient(
        transport,
        () => ({ url: 'http://companion.sim', token: SIM_TOKEN, offlineMode: false }),
        () => this.name,
      ),
      clock: { now: () => this.world.clock.now + this.skewMs },
      onEvent: (event) => this.events.push(event),
      randomId: () => `${this.name}x${this.world.rng.int(1e9)}x${++this.ids}`,
      blobsPerBatch: this.world.blobsPerBatch,
    });
  }

  /** With `--trace` and SIM_TRACE_ALL=1: every vault write/move/delete and state update. */
  dbg(line: string): void {
    if (process.env.SIM_TRACE_ALL === '1') this.world.trace(`    ${this.name}: ${line}`);
  }

  /** The app is killed: the engine's memory is gone, its calls in progress never return. */
  crash(): void {
    this.epoch++;
    this.engine = null;
    this.task = null;
    this.signal();
  }

  startPass(): void {
    const engine = this.engine;
    if (!engine || this.task) return;
    const epoch = this.epoch;
    this.task = engine
      .sync()
      .catch(() => undefined)
      .then(() => {
        if (this.epoch === epoch) {
          this.task = null;
          this.signal();
        }
      });
  }

  private async guarded<T>(epoch: number, work: () => Promise<T>): Promise<T> {
    if (epoch !== this.epoch) return never();
    const { rng, faults, faultsOn } = this.world;
    if (faultsOn && rng.chance(0.004 * faults)) {
      this.world.trace(`${this.name} crashes before a port call`);
      this.crash();
      return never();
    }
    const result = await work();
    if (epoch !== this.epoch) return never();
    if (this.world.faultsOn && rng.chance(0.004 * faults)) {
      this.world.trace(`${this.name} crashes after a port call`);
      this.crash();
      return never();
    }
    return result;
  }

  /** Whether a request this engine (`epoch`) sent is still waiting for delivery or its answer. */
  private inFlight(epoch: number): boolean {
    const mine = (pending: PendingRequest): boolean =>
      pending.device === this && pending.epoch === epoch;
    return (
      this.world.requests.some(mine) || this.world.answers.some((answer) => mine(answer.pending))
    );
  }

  private send(epoch: number, request: HttpRequest): Promise<HttpResponse> {
    if (epoch !== this.epoch) return never();
    if (!this.online) return Promise.reject(new Error('offline'));
    if (!this.world.faultsOn) return this.world.serve(request);
    if (this.inFlight(epoch)) {
      // A step runs a device until its next request: with two in flight, an answer to one may
      // leave it waiting on the other, which nothing announces (seed 62106690 waited until
      // the deadline). The run ends at once, saying so.
      this.world.broken ??= `${this.name} sent ${request.method} ${request.url} with another request in flight (the simulation runs one request per device at a time)`;
    }
    return new Promise((resolve, reject) => {
      this.world.requests.push({ device: this, epoch, request, resolve, reject });
      this.signal();
    });
  }
}

function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// One run

/** A run that has not finished after this long (wall clock) is reported as a failure. */
const RUN_DEADLINE_MS = 120_000;

export async function runOne(seed: number, options: RunOptions = {}): Promise<RunResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<RunResult>((resolve) => {
    timer = setTimeout(() => {
      resolve({
        seed,
        ops: 0,
        devices: 0,
        lost: [],
        diverged: [],
        resurrected: [],
        falseConflicts: [],
        error: `the run did not finish within ${RUN_DEADLINE_MS / 1000} s (a device waits forever)`,
      });
    }, RUN_DEADLINE_MS);
  });
  try {
    return await Promise.race([runOneUnguarded(seed, options), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function runOneUnguarded(seed: number, options: RunOptions): Promise<RunResult> {
  const rng = new Rng(seed);
  const faults = options.faults ?? 1;
  const shared = options.app ?? (await SharedCompanionApp.create());
  const digest = options.digest ? new RunDigest() : null;
  const userTrace = options.trace;
  const trace =
    digest === null
      ? (userTrace ?? (() => undefined))
      : (line: string) => {
          digest.line(line);
          userTrace?.(line);
        };
  const world = new World(shared, rng, faults, trace, options.blobsPerBatch ?? 1);
  const deviceCount = 2 + rng.int(4);
  const maxOps = Math.min(options.maxOps ?? Infinity, 20 + rng.int(60));
  try {
    // The companion's vault before any device: a few notes written there.
    for (let index = 0; index < 1 + rng.int(3); index++) serverCreate(world);
    await world.host.start();
    for (let index = 0; index < deviceCount; index++) {
      const skew = rng.chance(0.5) ? (rng.int(7200) - 3600) * 1000 : 0;
      const device = new SimDevice(world, `dev${index}`, rng.chance(0.5), skew);
      world.devices.push(device);
    }
    for (const device of world.devices) if (rng.chance(0.8)) await openDevice(world, device);

    let steps = 0;
    while (steps++ < 5000) {
      const done = world.ops >= maxOps;
      if (done && world.requests.length === 0 && world.answers.length === 0) break;
      await step(world, done);
      if (world.broken !== undefined) throw new Error(world.broken);
    }
    await heal(world);
    if (options.trace) dump(world);
    if (userTrace) {
      // Straight to the caller: timings differ from one run to the next, the digest must not.
      for (const [kind, { count, ms }] of world.timing)
        userTrace(`timing ${kind}: ${count} × ${(ms / count).toFixed(1)} ms`);
    }
    const result = check(world, seed, deviceCount);
    return digest === null ? result : { ...result, digest: digest.finish(world, result) };
  } catch (error) {
    return {
      seed,
      ops: world.ops,
      devices: deviceCount,
      lost: [],
      diverged: [],
      resurrected: [],
      falseConflicts: [],
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  } finally {
    await world.host.close().catch(() => undefined);
    if (!options.app) await shared.close();
  }
}

async function step(world: World, noMoreOps: boolean): Promise<void> {
  const { rng } = world;
  world.clock.advance(rng.int(3000));
  const roll = rng.next();
  if (roll < 0.3 && world.requests.length > 0) return deliverRequest(world);
  if (roll < 0.55 && world.answers.length > 0) return deliverAnswer(world);
  if (noMoreOps) {
    if (world.requests.length > 0) return deliverRequest(world);
    if (world.answers.length > 0) return deliverAnswer(world);
    return;
  }
  if (roll < 0.58 && world.ghosts.length > 0) {
    const ghost = world.ghosts.splice(rng.int(world.ghosts.length), 1)[0] as HttpRequest;
    world.trace(`ghost ${ghost.method} ${ghost.url}`);
    await world.serve(ghost);
    return;
  }
  const device = rng.pick(world.devices) as SimDevice;
  if (roll < 0.8) {
    userOp(world, device);
    world.ops++;
    if (device.isOpen && rng.chance(0.5)) await startPass(device);
    return;
  }
  if (roll < 0.88) {
    if (device.isOpen) await startPass(device);
    else await openDevice(world, device);
    return;
  }
  if (roll < 0.91 * 1 && world.faults > 0) {
    if (device.isOpen) {
      world.trace(`${device.name} is closed (killed)`);
      device.crash();
    } else await openDevice(world, device);
    return;
  }
  if (roll < 0.93 && world.faults > 0) {
    device.online = !device.online;
    world.trace(`${device.name} ${device.online ? 'back online' : 'offline'}`);
    return;
  }
  if (roll < 0.95) {
    serverCreateOrEdit(world);
    if (rng.chance(0.7)) await world.host.service.journal.rescan();
    world.ops++;
    return;
  }
  if (roll < 0.96 && world.faults > 0) {
    world.trace('companion restarts');
    await world.host.restart();
    return;
  }
  // The user confirms a held mass delete on a device that is not in the middle of a pass (one
  // waiting for the network would wait for the confirm's activity forever).
  const holder = world.devices.find(
    (candidate) => candidate.engine?.pendingHolds.length && !candidate.task,
  );
  if (holder?.engine) {
    const engine = holder.engine;
    const epoch = holder.epoch;
    const hold = engine.pendingHolds[0] as string;
    world.trace(`${holder.name} confirms hold ${hold}`);
    const activity = holder.activity();
    holder.task = engine
      .confirmHold(hold)
      .catch(() => undefined)
      .then(() => {
        if (holder.epoch === epoch) {
          holder.task = null;
          holder.signal();
        }
      });
    await activity;
  }
}

async function startPass(device: SimDevice): Promise<void> {
  if (device.task) return;
  const activity = device.activity();
  device.startPass();
  await activity;
}

async function openDevice(world: World, device: SimDevice): Promise<void> {
  world.trace(`${device.name} opens`);
  device.open();
  const engine = device.engine as SyncEngine;
  // The daily note: created once the first pull landed (the hold), or at once when the hold
  // gave up (offline or slow): then the companion's "only a template gives way" rule applies.
  if (!device.vault.has(DAILY) && world.rng.chance(0.3)) {
    if (world.rng.chance(0.3)) createDaily(world, device);
    else
      void engine.firstPullDone.then(() => device.engine === engine && createDaily(world, device));
  }
  await startPass(device);
}

function createDaily(world: World, device: SimDevice): void {
  if (device.vault.has(DAILY)) return;
  world.book.created(DAILY, device.name);
  device.vault.userWrite(DAILY, DAILY_TEMPLATE);
}

async function deliverRequest(world: World): Promise<void> {
  const { rng } = world;
  const pending = world.requests.splice(rng.int(world.requests.length), 1)[0] as PendingRequest;
  const { device, request } = pending;
  const f = world.faults;
  if (rng.chance(0.05 * f)) {
    world.trace(`drop request ${device.name} ${request.method} ${request.url}`);
    pending.reject(new Error('request dropped'));
    await settleDevice(device, pending);
    return;
  }
  const response = await world.serve(request);
  if (rng.chance(0.05 * f)) world.ghosts.push(request);
  if (rng.chance(0.05 * f)) {
    world.trace(`drop answer ${device.name} ${request.method} ${request.url} ${response.status}`);
    pending.reject(new Error('answer dropped'));
    await settleDevice(device, pending);
    return;
  }
  world.answers.push({ pending, response });
}

async function deliverAnswer(world: World): Promise<void> {
  const { pending, response } = world.answers.splice(
    world.rng.int(world.answers.length),
    1,
  )[0] as PendingAnswer;
  pending.resolve(response);
  await settleDevice(pending.device, pending);
}

/** Lets the device run until it sends its next request, finishes, or crashes. */
async function settleDevice(device: SimDevice, pending: PendingRequest): Promise<void> {
  if (pending.epoch !== device.epoch || !device.task) return;
  await Promise.race([device.activity(), device.task]);
}

// ---------------------------------------------------------------------------------------------
// The people (and programs) editing

function userOp(world: World, device: SimDevice): void {
  const { rng, book } = world;
  const vault = device.vault;
  const silent = !device.isOpen;
  const notes = vault.paths().filter((path) => path.endsWith('.md'));
  const roll = rng.next();
  const note = rng.pick(notes);
  if (note === undefined || roll < 0.12) {
    const path = `${rng.pick(NAMES)}.md`;
    // Two names differing only in case on one device are refused by the engine (reported, not
    // synced: docs/sync.md); people make them by accident, the simulation does not.
    if (hasFolded(vault, path)) return;
    const header = `# H${++book.tokens}`;
    book.created(path, device.name, header);
    vault.userWrite(path, `${header}\n${slot(book.token(device.name, header), device.name)}`, {
      silent,
    });
    world.trace(`${device.name} creates ${path}`);
    return;
  }
  const text = vault.text(note) ?? '';
  const header = headerOf(text);
  if (roll < 0.2) {
    // Other files with this note's header the user leaves where they are (its conflict copy,
    // shown beside it): they are not deleted by this, so their being there at the end is not
    // the note coming back (seed 1800000741).
    const kept = notes.filter(
      (other) => other !== note && headerOf(vault.text(other) ?? '') === header,
    ).length;
    book.deleted(device.name, note, text, kept);
    for (const token of tokensOf(text)) book.removed.add(token);
    vault.userDelete(note, { silent });
    world.trace(`${device.name} deletes ${note} (${header}: ${tokensOf(text).join(' ')})`);
    return;
  }
  if (roll < 0.28) {
    const caseOnly = rng.chance(0.4);
    const target = caseOnly ? flipCase(note) : `${rng.pick(NAMES)}.md`;
    if (
      target === note ||
      (hasFolded(vault, target) && target.toLowerCase() !== note.toLowerCase())
    ) {
      return;
    }
    book.created(target, device.name, header, note);
    vault.userRename(note, target, { silent });
    world.trace(`${device.name} renames ${note} → ${target}`);
    return;
  }
  const own = [...text.matchAll(new RegExp(`^- (L\\d+) ${device.name}$`, 'gm'))].map(
    (match) => match[1] as string,
  );
  const mine = rng.pick(own);
  if (mine !== undefined && roll < 0.45) {
    book.removed.add(mine);
    book.removedLine(header, mine);
    vault.userWrite(note, text.replace(`- ${mine} ${device.name}\n`, ''), { silent });
    world.trace(`${device.name} removes ${mine} from ${note}`);
    return;
  }
  if (mine !== undefined && roll < 0.65) {
    book.removed.add(mine);
    const token = book.token(device.name, header);
    vault.userWrite(
      note,
      text.replace(`- ${mine} ${device.name}\n`, `- ${token} ${device.name}\n`),
      {
        silent,
      },
    );
    world.trace(`${device.name} changes ${mine} to ${token} in ${note}`);
    return;
  }
  const token = book.token(device.name, header);
  const ending = text === '' || text.endsWith('\n') ? '' : '\n';
  vault.userWrite(note, `${text}${ending}${slot(token, device.name)}`, { silent });
  world.trace(`${device.name} appends ${token} to ${note} (${header})`);
}

function hasFolded(vault: MemoryVault, path: string): boolean {
  const folded = path.toLowerCase();
  return vault.paths().some((known) => known.toLowerCase() === folded);
}

function flipCase(path: string): string {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const first = name.charAt(0);
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return `${path.slice(0, slash + 1)}${flipped}${name.slice(1)}`;
}

/** The companion's vault before it starts: notes another program wrote. */
function serverCreate(world: World): void {
  const { book, rng } = world;
  const path = `${rng.pick(NAMES)}.md`;
  const absolute = join(world.host.vault, path);
  // A case variant of a file already there is not made: Linux would keep both, and no
  // case-insensitive device could (docs/sync.md: one of them is not synced).
  const taken = new Set([...world.host.files().keys()].map((known) => known.toLowerCase()));
  if (existsSync(absolute) || taken.has(path.toLowerCase())) return;
  const header = `# H${++book.tokens}`;
  book.created(path, 'server', header);
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, `${header}\n${slot(book.token('server', header), 'server')}`);
}

/** Another program on the companion's machine: a new note or a line appended to one. */
function serverCreateOrEdit(world: World): void {
  const { rng, book } = world;
  const files = [...world.host.files().keys()].filter((path) => path.endsWith('.md'));
  const path = rng.pick(files);
  if (path === undefined || rng.chance(0.2)) {
    serverCreate(world);
    world.trace('server program creates a note');
    return;
  }
  const absolute = join(world.host.vault, path);
  const text = readFileSync(absolute, 'utf8');
  const token = book.token('server', headerOf(text));
  appendFileSync(
    absolute,
    `${text.endsWith('\n') || text === '' ? '' : '\n'}${slot(token, 'server')}`,
  );
  world.trace(`server program appends ${token} to ${path}`);
}

// ---------------------------------------------------------------------------------------------
// Healing and checks

async function heal(world: World): Promise<void> {
  world.faultsOn = false;
  world.trace('--- heal');
  // Everything still in flight is delivered, ghosts included.
  while (world.requests.length > 0 || world.answers.length > 0) {
    if (world.requests.length > 0) await deliverRequest(world);
    else await deliverAnswer(world);
  }
  for (const ghost of world.ghosts.splice(0)) await world.serve(ghost);
  for (const device of world.devices) {
    device.online = true;
    if (device.task) await device.task;
    if (!device.isOpen) device.open();
  }
  await world.host.service.journal.rescan();
  let quiet = 0;
  for (let round = 0; round < 12 && quiet < 2; round++) {
    const before = snapshot(world);
    for (const device of world.devices) {
      const engine = device.engine as SyncEngine;
      for (const hold of engine.pendingHolds) await engine.confirmHold(hold);
      await engine.sync();
    }
    quiet = snapshot(world) === before ? quiet + 1 : 0;
  }
}

function snapshot(world: World): string {
  const parts: string[] = [];
  for (const [path, bytes] of [...world.host.files()].sort())
    parts.push(`${path}:${bytes.toString('base64')}`);
  for (const device of world.devices) {
    parts.push(`|${device.name}`);
    for (const path of device.vault.paths()) parts.push(`${path}:${device.vault.text(path)}`);
  }
  return parts.join('\n');
}

/**
 * A hash of what a run did (`RunOptions.digest`). The companion's file and hold ids are random
 * (16 base64url characters, companion/sync/journal.ts and commit.ts), so each is hashed as the
 * order it first appeared in: the same run gives the same digest in any process.
 */
class RunDigest {
  private readonly hash = createHash('sha256');
  private readonly ids = new Map<string, number>();

  line(text: string): void {
    this.hash.update(
      `${text.replace(/(?<![\w-])[\w-]{16}(?![\w-])/g, (id) => {
        let order = this.ids.get(id);
        if (order === undefined) this.ids.set(id, (order = this.ids.size));
        return `#${order}`;
      })}\n`,
    );
  }

  /** The trace so far, then the numbers drawn, every file and event, and the result. */
  finish(world: World, result: RunResult): string {
    this.line(`draws ${world.rng.draws}`);
    for (const [path, bytes] of [...world.host.files()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      this.line(`companion ${path}`);
      this.hash.update(bytes);
    }
    for (const device of world.devices) {
      for (const path of device.vault.paths()) {
        this.line(`${device.name} ${path}`);
        this.hash.update(device.vault.bytes(path) ?? new Uint8Array());
      }
      for (const event of device.events) this.line(`${device.name} ${JSON.stringify(event)}`);
    }
    this.line(JSON.stringify(result));
    return this.hash.digest('hex').slice(0, 16);
  }
}

function short(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 400 ? `${json.slice(0, 400)}… (${text.length} characters)` : json;
}

function dump(world: World): void {
  world.trace('--- companion');
  for (const [path, bytes] of [...world.host.files()].sort()) {
    world.trace(`${path}: ${short(bytes.toString('utf8'))}`);
  }
  for (const device of world.devices) {
    world.trace(`--- ${device.name}${device.vault.caseInsensitive ? ' (case-insensitive)' : ''}`);
    for (const path of device.vault.paths()) {
      world.trace(`${path}: ${short(device.vault.text(path) ?? '')}`);
    }
    for (const event of device.events) world.trace(`event ${JSON.stringify(event)}`);
  }
}

const CONFLICT_NAME = /\.conflict-\d{8}-\d{6}(?:-\d+)?(\.[^./]+)?$/;

function check(world: World, seed: number, devices: number): RunResult {
  const { book } = world;
  const server = world.host.files();
  const texts = [...server].map(([path, bytes]) => [path, bytes.toString('utf8')] as const);
  const everywhere = new Set(texts.flatMap(([, text]) => tokensOf(text)));

  const lost: string[] = [];
  for (const [token, by] of book.written) {
    if (!book.removed.has(token) && !everywhere.has(token)) lost.push(`${token} (by ${by})`);
  }

  const diverged: string[] = [];
  for (const device of world.devices) {
    const paths = device.vault.paths();
    const serverPaths = [...server.keys()].sort();
    for (const path of new Set([...paths, ...serverPaths])) {
      const mine = device.vault.bytes(path);
      const theirs = server.get(path);
      const same =
        mine !== undefined &&
        theirs !== undefined &&
        paths.includes(path) &&
        Buffer.compare(Buffer.from(mine), theirs) === 0;
      if (same) continue;
      const why =
        mine === undefined
          ? 'missing on the device'
          : theirs === undefined
            ? 'not on the companion'
            : !paths.includes(path)
              ? 'spelled otherwise on the device'
              : 'different bytes';
      diverged.push(`${device.name}: ${path} (${why})`);
    }
  }

  const resurrected: string[] = [];
  /** Deletions that lost to an edit (their notes are back, rightly): their path and time. */
  const overridden: { paths: Set<string>; at: number }[] = [];
  for (const deletion of book.deletions) {
    if (deletion.header === '') continue;
    if (deletion.header === headerOf(DAILY_TEMPLATE)) {
      // Daily notes are made again from the template on open, so one at the end is not this one
      // back. But a daily note moved elsewhere and deleted there is back if that path holds it
      // with a line its deleter never saw: an edit won over the delete, and a note made at that
      // path meanwhile met it (seed 1800000996: moved to Projects/Plan.md, deleted, the server
      // appended to it, a new projects/plan.md made).
      const revived =
        deletion.path !== DAILY.toLowerCase() &&
        texts.some(
          ([path, text]) =>
            path.toLowerCase() === deletion.path &&
            headerOf(text) === deletion.header &&
            tokensOf(text).some((token) => !deletion.tokens.has(token)),
        );
      if (revived) overridden.push({ paths: new Set([deletion.path]), at: deletion.at });
      continue;
    }
    const back = texts.filter(([, text]) => headerOf(text) === deletion.header);
    if (back.length === 0) {
      // Gone at the end, but an edit made concurrently or after may have won over this delete
      // for a while (deleted again later by another device): the note was back at its path
      // then, and a new note made there met it (seed 1400000846).
      const editedUnseen =
        [...(book.headerTokens.get(deletion.header) ?? [])].some(
          (token) => !deletion.tokens.has(token),
        ) ||
        (book.removals.get(deletion.header) ?? []).some(
          (removal) => removal.at > deletion.at || deletion.tokens.has(removal.token),
        );
      if (editedUnseen) overridden.push({ paths: deletion.paths, at: deletion.at });
      continue;
    }
    // Edited concurrently or after the delete (a line its deleter never saw): the edit wins.
    // Such a line is one written under the note's header, or any line in the note that came
    // back (after a conflict a device's later lines merge into the note under the other's
    // header: its own version went to the copy).
    const later = [
      ...(book.headerTokens.get(deletion.header) ?? []),
      ...back.flatMap(([, text]) => tokensOf(text)),
    ].filter((token) => !deletion.tokens.has(token));
    // Or edited by removing a line, after the delete was made or before it without its deleter
    // seeing it (its copy still had the line): an edit that adds no line is an edit all the
    // same (DESIGN §9: a delete whose base is not current loses to the edit; no deleted file
    // comes back unless it was edited after the delete was made).
    const removedUnseen = (book.removals.get(deletion.header) ?? []).some(
      (removal) => removal.at > deletion.at || deletion.tokens.has(removal.token),
    );
    if (later.length > 0 || removedUnseen) {
      overridden.push({ paths: deletion.paths, at: deletion.at });
      continue;
    }
    // No more files with its header than the deleter kept beside it: those stayed, none came back.
    if (back.length <= deletion.kept) continue;
    // Deleted elsewhere too, or kept by another device's unchanged copy: count the file once.
    resurrected.push(`${back.map(([path]) => path).join(', ')} (deleted by ${deletion.device})`);
  }

  const falseConflicts: string[] = [];
  const copies = new Set<string>();
  for (const [path] of texts) if (CONFLICT_NAME.test(path)) copies.add(path);
  for (const device of world.devices) {
    for (const event of device.events) if (event.kind === 'conflict') copies.add(event.copyPath);
  }
  for (const copy of copies) {
    const original = copy.replace(CONFLICT_NAME, '$1');
    const key = original.toLowerCase();
    const creators = book.creations.get(key);
    if (creators && creators.size >= 2) continue;
    // Two notes at one path all the same: a note deleted came back (an edit won over its
    // delete) after another note was made at a path it had (by anyone, its deleter too): the
    // path it was deleted at, or one it was moved from before (an edit sent by a device that
    // never saw the move brings it back where that device had it).
    const times = book.creationTimes.get(key) ?? [];
    const revivedUnderAnother = overridden.some(
      (deletion) => deletion.paths.has(key) && times.some((at) => at > deletion.at),
    );
    if (revivedUnderAnother) continue;
    falseConflicts.push(`${copy} (of ${original})`);
  }
  return {
    seed,
    ops: world.ops,
    devices,
    lost,
    diverged,
    resurrected: [...new Set(resurrected)],
    falseConflicts,
  };
}

// ---------------------------------------------------------------------------------------------
// Many runs, and shrinking a failure

export interface SimulationSummary {
  readonly runs: number;
  readonly ops: number;
  readonly lost: number;
  readonly diverged: number;
  readonly resurrected: number;
  readonly falseConflicts: number;
  readonly failures: RunResult[];
}

export async function runSimulation(options: {
  runs: number;
  seed: number;
  maxOps?: number;
  faults?: number;
  blobsPerBatch?: number;
  digest?: boolean;
  onRun?: (result: RunResult, index: number) => void;
}): Promise<SimulationSummary> {
  let ops = 0;
  let lost = 0;
  let diverged = 0;
  let resurrected = 0;
  let falseConflicts = 0;
  const failures: RunResult[] = [];
  const app = await SharedCompanionApp.create();
  try {
    for (let index = 0; index < options.runs; index++) {
      const result = await runOne(options.seed + index, {
        app,
        ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
        ...(options.faults === undefined ? {} : { faults: options.faults }),
        ...(options.blobsPerBatch === undefined ? {} : { blobsPerBatch: options.blobsPerBatch }),
        ...(options.digest === undefined ? {} : { digest: options.digest }),
      });
      ops += result.ops;
      lost += result.lost.length;
      diverged += result.diverged.length;
      resurrected += result.resurrected.length;
      falseConflicts += result.falseConflicts.length;
      if (failed(result)) failures.push(result);
      options.onRun?.(result, index);
    }
  } finally {
    await app.close();
  }
  return { runs: options.runs, ops, lost, diverged, resurrected, falseConflicts, failures };
}

/** The fewest user ops with which `seed` still fails (its own budget first, then fewer). */
export async function shrink(
  seed: number,
  ops: number,
  blobsPerBatch?: number,
): Promise<{ maxOps: number; result: RunResult }> {
  const batch = blobsPerBatch === undefined ? {} : { blobsPerBatch };
  let best = { maxOps: ops, result: await runOne(seed, { maxOps: ops, ...batch }) };
  let low = 0;
  let high = ops;
  while (low + 1 < high) {
    const middle = Math.floor((low + high) / 2);
    const result = await runOne(seed, { maxOps: middle, ...batch });
    if (failed(result)) {
      high = middle;
      best = { maxOps: middle, result };
    } else low = middle;
  }
  return best;
}

export function summaryLine(summary: SimulationSummary): string {
  return `sync-sim: runs ${summary.runs}, ops ${summary.ops}, lost ${summary.lost}, diverged ${summary.diverged}, resurrected ${summary.resurrected}, false conflicts ${summary.falseConflicts}`;
}
