import { companionApi } from './api-client';
import { clickOutcome, isOccurrenceTag, notificationFromPush } from './notification-actions';
import type { NotificationSpec, ReminderPush } from './notification-actions';
import { claimShowing, forgetShowing, markShown } from './shown-occurrences';
import type { ShowingState } from './shown-occurrences';
import { registerOfflineShell } from './offline-shell';
import type { OfflineShellScope } from './offline-shell';
import { readToken } from './token-store';

/*
 * The phone page's service worker: shows reminder pushes as notifications and carries out their
 * Done / Snooze buttons by calling the companion, so acting on a reminder needs no open page.
 * Service-worker event types are declared here because the DOM and WebWorker libraries cannot
 * share one TypeScript program.
 */

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { json(): unknown; text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly action: string;
  readonly notification: Notification & { data: unknown; close(): void };
}
interface WindowClientLike {
  readonly url: string;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
interface ServiceWorkerScope {
  readonly registration: ServiceWorkerRegistration;
  readonly clients: {
    claim(): Promise<void>;
    matchAll(options: {
      type: 'window';
      includeUncontrolled: boolean;
    }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
}

const worker = self as unknown as ServiceWorkerScope;

// Offline shell (offline-shell.ts): separate from the notification handling below.
registerOfflineShell(self as unknown as OfflineShellScope, caches);

worker.addEventListener('install', (event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener('activate', (event) => event.waitUntil(worker.clients.claim()));

worker.addEventListener('push', (event) => {
  event.waitUntil(showInTurn(notificationFromPush(readPushData(event))));
});

/** The pushes of each tag still being handled, one after the other (`showInTurn`). */
const handling = new Map<string, Promise<void>>();

/**
 * `showOnce`, after every earlier push of the same tag. Two repeats handled at once could
 * interleave: the second saw the first's silent notification on screen (not yet closed), took
 * it for the person's, and left its own there for good.
 */
function showInTurn(spec: NotificationSpec): Promise<void> {
  const { tag } = spec.options;
  const run = (handling.get(tag) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => showOnce(spec));
  handling.set(tag, run);
  const done = (): void => {
    if (handling.get(tag) === run) handling.delete(tag);
  };
  run.then(done, done);
  return run;
}

/**
 * Shows an occurrence the first time it arrives. A repeat (the companion resends what a kill
 * left in doubt, docs/delivery.md) is still shown, because browsers require every push to
 * show a notification (Safari revokes a subscription whose pushes show none), but silently:
 * over the first while that is on screen (the same notification), or, once the first was
 * dismissed or acted on, only to be closed at once, so it does not come back.
 *
 * "Dismissed" needs the first to have reached the screen: it is recorded as shown only after
 * `showNotification` resolved. A repeat that finds the first claimed but not shown (handled at
 * the same moment, or its worker was stopped in between) shows it as new; the tag makes it
 * replace the first, and `renotify: false` keeps a replacement from alerting twice. When the
 * record cannot be read, the occurrence is shown as new: a repeat seen is better than a
 * reminder lost.
 */
async function showOnce(spec: NotificationSpec): Promise<void> {
  const { tag } = spec.options;
  const occurrence = isOccurrenceTag(tag);
  let state: ShowingState = 'first';
  if (occurrence) {
    try {
      state = await claimShowing(tag, Date.now());
    } catch {
      state = 'first';
    }
  }
  const { registration } = worker;
  if (state !== 'shown') {
    try {
      await registration.showNotification(spec.title, spec.options);
    } catch (error) {
      // Not shown: a repeat must not be taken for one already seen.
      if (occurrence && state === 'first') await forgetShowing(tag).catch(() => undefined);
      throw error;
    }
    if (occurrence) await markShown(tag, Date.now()).catch(() => undefined);
    return;
  }
  const onScreen = (await registration.getNotifications({ tag })).length > 0;
  await registration.showNotification(spec.title, { ...spec.options, silent: true });
  if (onScreen) return;
  for (const shown of await registration.getNotifications({ tag })) shown.close();
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const push = event.notification.data as ReminderPush;
  const outcome = clickOutcome(event.action, push);
  event.waitUntil(
    outcome.kind === 'open' ? openWindow(outcome.url) : callCompanion(outcome, push.title),
  );
});

function readPushData(event: PushEvent): unknown {
  if (!event.data) return null;
  try {
    return event.data.json();
  } catch {
    return null;
  }
}

async function callCompanion(
  outcome: {
    path: string;
    body: Record<string, unknown>;
    idempotencyKey: string;
    confirmation: string;
  },
  title: string,
): Promise<void> {
  const token = await readToken();
  let message = outcome.confirmation;
  if (!token) {
    message = `Not signed in: open Cairn to sign in, then try again (${title}).`;
  } else {
    try {
      await companionApi(token).post(outcome.path, outcome.body, {
        'Idempotency-Key': outcome.idempotencyKey,
      });
    } catch (error) {
      message = `Could not reach the companion: ${(error as Error).message} (${title})`;
    }
  }
  // A short confirmation replaces the reminder; the user sees the action took (or why not).
  await worker.registration.showNotification('Cairn', {
    body: message,
    tag: 'cairn-action',
    icon: '/icons/icon-192.png',
  });
}

async function openWindow(url: string): Promise<void> {
  if (url.startsWith('/')) {
    const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows[0];
    if (open) {
      await open.focus();
      return;
    }
  }
  await worker.clients.openWindow(url);
}
