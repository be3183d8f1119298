/*
 * The Node side of scripts/bench/sync.mjs: devices that run the plugin's real sync engine over
 * in-memory vaults (test/fakes/memory-vault.ts, as scripts/sync-sim does) and node:http against
 * the real built companion in its own process. Used for the time rows (first sync, an open with
 * nothing changed, edit → other device); the memory row is Chromium's (sync-browser-page.ts).
 */
import { MemorySyncStateStore } from '../../plugin/sync/memory-state-store';
import { MemoryVault } from '../../test/fakes/memory-vault';
import { NodeHttpTransport } from '../../test/helpers/node-http-transport';
import { openDevice, startRunner } from './sync-device';
import type { BenchDevice } from './sync-device';
import { prng } from './generate-vault';

export { generateVault } from './generate-vault';
export { percentile } from './stats';

export interface NodeDevice {
  readonly name: string;
  readonly vault: MemoryVault;
  readonly store: MemorySyncStateStore;
  device: BenchDevice;
  stopEvents: () => void;
}

const transport = new NodeHttpTransport();

function wire(
  name: string,
  url: string,
  token: string,
  vault: MemoryVault,
  store: MemorySyncStateStore,
): NodeDevice {
  const device = openDevice({ url, token, name, vault, store, transport });
  // Obsidian fires vault events for every write, the engine's own included; the runner (once
  // started) gets them as the plugin's wiring (sync-setup.ts) hands them on.
  const stopEvents = vault.onEvent((event) => {
    const runner = device.runner;
    if (!runner) return;
    if (event.kind === 'renamed') runner.noteRenamed(event.from, event.to);
    else runner.noteChanged(event.path);
  });
  return { name, vault, store, device, stopEvents };
}

/** An empty device (a phone paired to a companion that already holds the vault). */
export function emptyDevice(name: string, url: string, token: string): NodeDevice {
  return wire(
    name,
    url,
    token,
    new MemoryVault(false, { now: () => Date.now() }),
    new MemorySyncStateStore(),
  );
}

/** The same device opened again: a new engine (Obsidian restarted) over its vault and state. */
export function reopened(previous: NodeDevice, url: string, token: string): NodeDevice {
  previous.device.runner?.stop();
  previous.stopEvents();
  return wire(previous.name, url, token, previous.vault, previous.store);
}

/** One whole pass (what the runner's first pass does on open), timed. */
export async function timedPass(
  device: NodeDevice,
): Promise<{ ms: number; requests: number; times: string }> {
  const before = device.device.log.count;
  device.device.times.ms.clear();
  const started = performance.now();
  await device.device.engine.sync();
  return {
    ms: performance.now() - started,
    requests: device.device.log.count - before,
    times: device.device.times.summary(),
  };
}

export interface EditLatencies {
  /** ms from the edit on `from` to its bytes in `to`'s vault, per edit. */
  readonly ms: number[];
  readonly timedOut: number;
}

/**
 * `count` edits on `from` (the runner running, as in an open Obsidian: a pass once edits settle),
 * each timed until `to` (its runner long-polling) has written it, one edit at a time with a
 * seeded pause of 0.2–1.2 s between them.
 */
export async function editLatencies(
  from: NodeDevice,
  to: NodeDevice,
  count: number,
  seed = 7,
): Promise<EditLatencies> {
  startRunner(from.device);
  startRunner(to.device);
  const random = prng(seed);
  const paths = from.vault.paths().filter((path) => path.endsWith('.md'));
  // Both runners' first passes (nothing to do) and long polls settle first.
  await Promise.all([from.device.engine.firstPullDone, to.device.engine.firstPullDone]);
  await sleep(1500);
  const ms: number[] = [];
  let timedOut = 0;
  for (let i = 0; i < count; i++) {
    const path = paths[Math.floor(random() * paths.length)]!;
    const marker = `- bench edit ${i} ${Math.floor(random() * 1e9)}`;
    const text = `${from.vault.text(path) ?? ''}\n${marker}\n`;
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        stop();
        resolve(false);
      }, 30_000);
      const stop = to.vault.onEvent((event) => {
        if (
          event.kind === 'changed' &&
          event.path === path &&
          to.vault.text(path)?.includes(marker)
        ) {
          clearTimeout(timer);
          stop();
          resolve(true);
        }
      });
    });
    const started = performance.now();
    from.vault.userWrite(path, text);
    if (await arrived) ms.push(performance.now() - started);
    else timedOut++;
    await sleep(200 + random() * 1000);
  }
  from.device.runner?.stop();
  to.device.runner?.stop();
  return { ms, timedOut };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
