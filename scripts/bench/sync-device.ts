/*
 * A benchmark device of scripts/bench/sync.mjs: the plugin's real sync engine (SyncEngine,
 * CompanionSyncClient, SyncRunner) over any vault and state store, with every request it makes
 * logged (kind, time), so the bench can say how many requests a first sync makes and how many
 * per minute (the sync routes' rate limits are set well above that: docs/sync.md). Runs in Node
 * (MemoryVault, MemorySyncStateStore, node:http) and in Chromium (sync-browser-page.ts: OPFS
 * vault, IndexedDB store, fetch) alike: nothing here is Node- or DOM-only.
 */
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../plugin/connection/http-transport';
import { CompanionSyncClient } from '../../plugin/sync/sync-client';
import { SyncEngine } from '../../plugin/sync/sync-engine';
import type { SyncStateStore, SyncVault } from '../../plugin/sync/sync-ports';
import { SyncRunner } from '../../plugin/sync/sync-runner';
import type { SyncTimers } from '../../plugin/sync/sync-runner';

/** Every request a device sent: `GET changes`, `PUT blobs`, … and when it was answered. */
export class RequestLog {
  readonly kinds = new Map<string, number>();
  /** performance.now() of each answer, in order. */
  readonly times: number[] = [];
  count = 0;

  add(request: HttpRequest): void {
    const path = new URL(request.url).pathname.split('/')[4] ?? '';
    const kind = `${request.method} ${path}`;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    this.times.push(performance.now());
    this.count++;
  }

  /** The most requests answered in any 60 s (the whole run's count when it was shorter). */
  peakPerMinute(from = 0): number {
    const times = this.times.slice(from);
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! > 60_000) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }

  /** The most requests answered in any one second. */
  peakPerSecond(from = 0): number {
    const times = this.times.slice(from);
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! > 1000) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }
}

/** Where a device's time went: ms and calls per port method (vault, store, HTTP). */
export class PortTimes {
  readonly ms = new Map<string, { ms: number; calls: number }>();

  /** `target` with every method timed under `prefix.method` (calls overlap only if the engine's do). */
  wrap<T extends object>(prefix: string, target: T): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          const started = performance.now();
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (!(result instanceof Promise)) return result;
          return result.finally(() =>
            this.add(`${prefix}.${property}`, performance.now() - started),
          );
        };
      },
    });
  }

  add(name: string, ms: number): void {
    const entry = this.ms.get(name) ?? { ms: 0, calls: 0 };
    entry.ms += ms;
    entry.calls++;
    this.ms.set(name, entry);
  }

  /** `name ms (calls)`, largest first. */
  summary(): string {
    return [...this.ms]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([name, { ms, calls }]) => `${name} ${(ms / 1000).toFixed(2)} s (${calls})`)
      .join(', ');
  }
}

export interface BenchDevice {
  readonly times: PortTimes;
  readonly engine: SyncEngine;
  readonly log: RequestLog;
  readonly api: CompanionSyncClient;
  /** The long-polling runner, once `startRunner` made it. */
  runner: SyncRunner | null;
}

export interface BenchDeviceOptions {
  readonly url: string;
  readonly token: string;
  readonly name: string;
  readonly vault: SyncVault;
  readonly store: SyncStateStore;
  readonly transport: HttpTransport;
}

export function openDevice(options: BenchDeviceOptions): BenchDevice {
  const log = new RequestLog();
  const times = new PortTimes();
  const transport: HttpTransport = {
    request: async (request): Promise<HttpResponse> => {
      const started = performance.now();
      const response = await options.transport.request(request);
      log.add(request);
      times.add(`http.${request.method}`, performance.now() - started);
      return response;
    },
  };
  const api = new CompanionSyncClient(
    transport,
    () => ({ url: options.url, token: options.token, offlineMode: false }),
    () => options.name,
  );
  const engine = new SyncEngine({
    vault: times.wrap('vault', options.vault),
    store: times.wrap('store', options.store),
    api,
    clock: { now: () => Date.now() },
  });
  return { engine, log, api, times, runner: null };
}

/** The runner with the plugin's own settings (sync-setup.ts passes none: the defaults). */
export function startRunner(device: BenchDevice): SyncRunner {
  const handles = new Map<number, ReturnType<typeof setTimeout>>();
  let next = 0;
  const timers: SyncTimers = {
    setTimeout: (callback, ms) => {
      const id = ++next;
      handles.set(
        id,
        setTimeout(() => {
          handles.delete(id);
          callback();
        }, ms),
      );
      return id;
    },
    clearTimeout: (id) => {
      clearTimeout(handles.get(id));
      handles.delete(id);
    },
  };
  const runner = new SyncRunner(device.engine, device.api, timers, {
    onRetry: (error) => console.error(`  sync bench: a pass will be retried: ${String(error)}`),
    onStopped: (error) => console.error(`  sync bench: the runner stopped: ${error.message}`),
  });
  device.runner = runner;
  runner.start();
  return runner;
}
