import type { Agent } from 'node:https';
import type { Clock } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import type { MetricsRegistry } from '../metrics/registry';
import type { PushStatusSource } from '../status/sources';
import { PushSubscriptionStore } from './subscription-store';
import type { VapidKeys } from './vapid-keys';
import { WebPushSender } from './web-push-sender';

/**
 * Everything push, built once by server.ts and shared: the routes use it through `buildApp`,
 * the reminder scheduler delivers through `sender` (its `ReminderDeliverer`).
 */
export interface PushService {
  /** VAPID public key (base64url) for the browser's `applicationServerKey`. */
  readonly publicKey: string;
  /** `CAIRN_PUSH_HOSTS`; empty = any public https host (see endpoint-policy.ts). */
  readonly pushHosts: readonly string[];
  readonly store: PushSubscriptionStore;
  readonly sender: WebPushSender;
  readonly status: PushStatusSource;
}

export interface PushServiceOptions {
  /** Migrated (003 creates `push_subscriptions`). */
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly keys: VapidKeys;
  readonly pushHosts: readonly string[];
  readonly logger?: Logger;
  /** Gets `cairn_push_deliveries_total{outcome}` and `cairn_push_subscriptions`. */
  readonly metrics?: MetricsRegistry;
  /** Outgoing TLS; absent = Node's default (its CA store + NODE_EXTRA_CA_CERTS). */
  readonly agent?: Agent;
  readonly timeoutMs?: number;
  readonly maxConcurrent?: number;
}

export function createPushService(options: PushServiceOptions): PushService {
  const store = new PushSubscriptionStore(options.db, options.clock);
  const sender = new WebPushSender({
    store,
    keys: options.keys,
    clock: options.clock,
    pushHosts: options.pushHosts,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxConcurrent !== undefined ? { maxConcurrent: options.maxConcurrent } : {}),
  });
  options.metrics?.gauge('cairn_push_subscriptions', 'Devices subscribed to push messages.', () =>
    store.count(),
  );
  return {
    publicKey: options.keys.publicKey,
    pushHosts: options.pushHosts,
    store,
    sender,
    status: { pushStatus: () => ({ subscriptions: store.count() }) },
  };
}
