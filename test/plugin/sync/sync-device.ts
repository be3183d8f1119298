import { MemorySyncStateStore } from '../../../plugin/sync/memory-state-store';
import { CompanionSyncClient } from '../../../plugin/sync/sync-client';
import { SyncEngine } from '../../../plugin/sync/sync-engine';
import type { SyncEngineOptions, SyncEvent } from '../../../plugin/sync/sync-engine';
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../../plugin/connection/http-transport';
import { ManualClock } from '../../fakes/clock';
import { MemoryVault } from '../../fakes/memory-vault';
import { TEST_TOKEN } from '../../companion/helpers/app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { InjectTransport } from '../../helpers/inject-transport';

/**
 * A transport to the test companion whose every request `around` sees first: it may act before
 * or after sending (`send()`), fail the request (throw, or a rejected promise) or answer itself.
 * A lost answer is `await send()` and then a throw: the companion applied the request.
 */
export function intercept(
  t: { app: SyncTestApp['app'] },
  around: (request: HttpRequest, send: () => Promise<HttpResponse>) => Promise<HttpResponse>,
): HttpTransport {
  const inner = new InjectTransport(() => t.app);
  return { request: (request) => around(request, () => inner.request(request)) };
}

/** A device: an in-memory vault, its saved sync state and the real engine, on a real companion. */
export interface TestDevice {
  readonly name: string;
  readonly vault: MemoryVault;
  readonly store: MemorySyncStateStore;
  readonly events: SyncEvent[];
  readonly transport: HttpTransport;
  engine: SyncEngine;
  /** Drops the engine (its memory) and starts a new one over the same vault and state. */
  restart(): void;
}

export function testDevice(
  t: { app: SyncTestApp['app'] },
  name: string,
  options: {
    caseInsensitive?: boolean;
    transport?: HttpTransport;
    clock?: ManualClock;
    /** Passed to the engine as they are (a scope, a download limit, blobs per batch). */
    engine?: Pick<SyncEngineOptions, 'scope' | 'downloadLimitBytes' | 'blobsPerBatch'>;
  } = {},
): TestDevice {
  const clock = options.clock ?? ManualClock.at('2026-11-22T10:00:00Z');
  const vault = new MemoryVault(options.caseInsensitive ?? false, clock);
  const store = new MemorySyncStateStore();
  const events: SyncEvent[] = [];
  const transport = options.transport ?? new InjectTransport(() => t.app);
  let ids = 0;
  const build = (): SyncEngine =>
    new SyncEngine({
      vault,
      store,
      api: new CompanionSyncClient(
        transport,
        () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
        () => name,
      ),
      clock,
      onEvent: (event) => events.push(event),
      randomId: () => `${name.replace(/\W/g, '')}-commit-${++ids}`.padEnd(8, '0'),
      ...options.engine,
    });
  const device: TestDevice = {
    name,
    vault,
    store,
    events,
    transport,
    engine: build(),
    restart() {
      device.engine = build();
    },
  };
  vault.onEvent((event) => {
    if (event.kind === 'changed') device.engine.noteChanged(event.path);
    else device.engine.noteRenamed(event.from, event.to);
  });
  return device;
}
