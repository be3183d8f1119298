import { isRecord } from '../../shared/protocol/json';

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
    /** No sound or vibration (a repeat of an occurrence already shown). */
    silent?: boolean;
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
      // One notification per occurrence: the same occurrence delivered again (at least once,
      // e.g. after a restart mid-burst) replaces the one shown, silently, and is not shown
      // again once the first was dismissed (sw.ts, shown-occurrences.ts); another occurrence or
      // a snooze's ring is a notification of its own.
      tag: occurrenceTag(push),
      renotify: false,
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

/** Whether a notification's tag names one occurrence (`occurrenceTag`), not a plain notice. */
export function isOccurrenceTag(tag: string): boolean {
  return tag.startsWith('reminder:');
}

/**
 * `reminder:<id>@<occurrence as epoch ms>`: the same for every delivery of one occurrence,
 * whatever offset the instant was written with.
 */
export function occurrenceTag(push: Pick<ReminderPush, 'reminder_id' | 'occurrence'>): string {
  const instant = Date.parse(push.occurrence);
  return `reminder:${push.reminder_id}@${Number.isFinite(instant) ? instant : push.occurrence}`;
}

export type ClickOutcome =
  | {
      kind: 'request';
      path: string;
      body: Record<string, unknown>;
      /** Sent as `Idempotency-Key`: a double tap or a retried call acts once. */
      idempotencyKey: string;
      confirmation: string;
    }
  | { kind: 'open'; url: string };

/** What pressing `action` (empty for a tap on the notification itself) should do. */
export function clickOutcome(action: string, push: ReminderPush): ClickOutcome {
  const base = `/api/v1/reminders/${encodeURIComponent(push.reminder_id)}`;
  const key = actionKey(action, push);
  if (push.reminder_id !== '') {
    switch (action) {
      case 'done':
        return {
          kind: 'request',
          path: `${base}/done`,
          body: { occurrence: push.occurrence },
          idempotencyKey: key,
          confirmation: `Done: ${push.title}`,
        };
      case 'snooze_15m':
        return {
          kind: 'request',
          path: `${base}/snooze`,
          body: { minutes: 15, occurrence: push.occurrence },
          idempotencyKey: key,
          confirmation: `Snoozed for 15 minutes: ${push.title}`,
        };
      case 'snooze_1h':
        return {
          kind: 'request',
          path: `${base}/snooze`,
          body: { minutes: 60, occurrence: push.occurrence },
          idempotencyKey: key,
          confirmation: `Snoozed for 1 hour: ${push.title}`,
        };
    }
  }
  return { kind: 'open', url: safeOpenUrl(push.deep_link) };
}

/**
 * One key per (action, reminder, occurrence): printable, no spaces, short (ids of lines without
 * a block id hold the line's text, so the id enters as a 64-bit FNV-1a hash).
 */
export function actionKey(
  action: string,
  push: Pick<ReminderPush, 'reminder_id' | 'occurrence'>,
): string {
  const instant = Date.parse(push.occurrence);
  return `cairn-${action}-${fnv1a64(push.reminder_id)}-${Number.isFinite(instant) ? instant : fnv1a64(push.occurrence)}`;
}

function fnv1a64(text: string): string {
  // Two 32-bit FNV-1a lanes with different offsets: plain Math.imul, no BigInt needed.
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193);
  }
  return `${(a >>> 0).toString(16).padStart(8, '0')}${(b >>> 0).toString(16).padStart(8, '0')}`;
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
