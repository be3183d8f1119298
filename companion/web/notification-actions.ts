import { isRecord } from './api-client';

/**
 * What a push message turns into on the phone, and what each notification button does. Pure,
 * so the same rules are unit-tested in Node and run in the service worker.
 */

/** The fields of `PushPayload` (shared/protocol/push.ts) the service worker relies on. */
export interface ReminderPush {
  title: string;
  body: string;
  reminder_id: string;
  occurrence: string;
  deep_link: string;
  actions: string[];
}

const ACTION_TITLES: Record<string, string> = {
  done: 'Done',
  snooze_15m: 'Snooze 15 min',
  snooze_1h: 'Snooze 1 h',
};

export interface NotificationSpec {
  title: string;
  options: {
    body: string;
    tag: string;
    renotify: boolean;
    requireInteraction: boolean;
    icon: string;
    badge: string;
    timestamp: number;
    data: ReminderPush;
    actions: { action: string; title: string }[];
  };
}

/** Reads a push message's JSON; anything that is not a reminder payload gets a plain notice. */
export function notificationFromPush(data: unknown): NotificationSpec {
  const push = asReminderPush(data);
  if (!push) {
    return {
      title: 'Cairn',
      options: {
        body: 'A message from your companion could not be read. Open Cairn to see your reminders.',
        tag: 'cairn-unreadable',
        renotify: false,
        requireInteraction: false,
        icon: '/icons/icon-192.png',
        badge: '/icons/icon-192.png',
        timestamp: Date.now(),
        data: {
          title: 'Cairn',
          body: '',
          reminder_id: '',
          occurrence: '',
          deep_link: '/',
          actions: [],
        },
        actions: [],
      },
    };
  }
  const occurrence = Date.parse(push.occurrence);
  return {
    title: push.title,
    options: {
      body: push.body,
      // One notification per reminder: a repeat of the same reminder replaces the older one.
      tag: `reminder:${push.reminder_id}`,
      renotify: true,
      requireInteraction: true,
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      timestamp: Number.isFinite(occurrence) ? occurrence : Date.now(),
      data: push,
      // Android shows the first two; Done and the short snooze are the ones worth a tap.
      actions: push.actions
        .filter((action) => action in ACTION_TITLES)
        .map((action) => ({ action, title: ACTION_TITLES[action] ?? action })),
    },
  };
}

export type ClickOutcome =
  | { kind: 'request'; path: string; body: Record<string, unknown>; confirmation: string }
  | { kind: 'open'; url: string };

/** What pressing `action` (empty for a tap on the notification itself) should do. */
export function clickOutcome(action: string, push: ReminderPush): ClickOutcome {
  const base = `/api/v1/reminders/${encodeURIComponent(push.reminder_id)}`;
  if (push.reminder_id !== '') {
    switch (action) {
      case 'done':
        return {
          kind: 'request',
          path: `${base}/done`,
          body: { occurrence: push.occurrence },
          confirmation: `Done: ${push.title}`,
        };
      case 'snooze_15m':
        return {
          kind: 'request',
          path: `${base}/snooze`,
          body: { minutes: 15 },
          confirmation: `Snoozed for 15 minutes: ${push.title}`,
        };
      case 'snooze_1h':
        return {
          kind: 'request',
          path: `${base}/snooze`,
          body: { minutes: 60 },
          confirmation: `Snoozed for 1 hour: ${push.title}`,
        };
    }
  }
  return { kind: 'open', url: safeOpenUrl(push.deep_link) };
}

/** Only Obsidian deep links and this page's own paths are opened; anything else opens the page. */
export function safeOpenUrl(link: string): string {
  if (link.startsWith('obsidian://')) return link;
  if (link.startsWith('/') && !link.startsWith('//')) return link;
  return '/';
}

function asReminderPush(data: unknown): ReminderPush | null {
  if (!isRecord(data)) return null;
  const { title, body, reminder_id, occurrence, deep_link, actions } = data;
  if (typeof title !== 'string' || typeof reminder_id !== 'string' || reminder_id === '') {
    return null;
  }
  return {
    title,
    body: typeof body === 'string' ? body : '',
    reminder_id,
    occurrence: typeof occurrence === 'string' ? occurrence : '',
    deep_link: typeof deep_link === 'string' ? deep_link : '/',
    actions: Array.isArray(actions)
      ? actions.filter((action): action is string => typeof action === 'string')
      : [],
  };
}
