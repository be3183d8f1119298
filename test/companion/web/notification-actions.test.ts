import { describe, expect, it } from 'vitest';
import {
  actionKey,
  clickOutcome,
  isOccurrenceTag,
  notificationFromPush,
  safeOpenUrl,
} from '../../../companion/web/notification-actions';
import { tokenFromFragment } from '../../../companion/web/pairing';

const push = {
  title: 'Call the bank',
  body: 'Cairn/Reminders/call-the-bank.md',
  reminder_id: 'r-7k2p',
  occurrence: '2026-11-23T17:00:00+01:00',
  deep_link: 'obsidian://open?vault=Home&file=Inbox.md#%5Er-7k2p',
  actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
};

describe('notificationFromPush', () => {
  it('shows a reminder with its buttons, one notification per occurrence', () => {
    const spec = notificationFromPush(push);
    expect(spec.title).toBe('Call the bank');
    expect(spec.options.body).toBe('Cairn/Reminders/call-the-bank.md');
    expect(spec.options.tag).toBe(`reminder:r-7k2p@${Date.parse('2026-11-23T16:00:00Z')}`);
    // A repeated delivery replaces the notification without ringing again.
    expect(spec.options.renotify).toBe(false);
    expect(spec.options.timestamp).toBe(Date.parse('2026-11-23T16:00:00Z'));
    expect(spec.options.actions).toEqual([
      { action: 'done', title: 'Done' },
      { action: 'snooze_15m', title: 'Snooze 15 min' },
      { action: 'snooze_1h', title: 'Snooze 1 h' },
    ]);
    expect(spec.options.data).toEqual(push);
  });

  it.each([
    ['null', null],
    ['a string', 'hello'],
    ['an array', [push]],
    ['no reminder id', { ...push, reminder_id: '' }],
    ['a numeric title', { ...push, title: 5 }],
  ])('turns an unreadable message (%s) into a plain notice, never a throw', (_name, data) => {
    const spec = notificationFromPush(data);
    expect(spec.title).toBe('Cairn');
    expect(spec.options.body).toMatch(/could not be read/);
    expect(spec.options.actions).toEqual([]);
  });

  it('gives a repeated delivery of one occurrence the same tag, and other occurrences their own', () => {
    const tag = notificationFromPush(push).options.tag;
    const sameInUtc = { ...push, occurrence: '2026-11-23T16:00:00Z' };
    expect(notificationFromPush(sameInUtc).options.tag).toBe(tag);
    const snoozeRing = { ...push, occurrence: '2026-11-23T17:15:00+01:00' };
    expect(notificationFromPush(snoozeRing).options.tag).not.toBe(tag);
    const otherReminder = { ...push, reminder_id: 'r-x81c' };
    expect(notificationFromPush(otherReminder).options.tag).not.toBe(tag);
  });

  it('marks reminder occurrences as shown-once, and a plain notice not', () => {
    // Only occurrence tags are recorded as shown (sw.ts): an unreadable message is no occurrence.
    expect(isOccurrenceTag(notificationFromPush(push).options.tag)).toBe(true);
    expect(isOccurrenceTag(notificationFromPush(null).options.tag)).toBe(false);
  });

  it('drops unknown actions and fields of the wrong type', () => {
    const spec = notificationFromPush({ ...push, actions: ['done', 'explode', 7], body: 3 });
    expect(spec.options.actions.map((action) => action.action)).toEqual(['done']);
    expect(spec.options.body).toBe('');
  });
});

describe('clickOutcome', () => {
  it('marks the occurrence done through the API', () => {
    expect(clickOutcome('done', push)).toEqual({
      kind: 'request',
      path: '/api/v1/reminders/r-7k2p/done',
      body: { occurrence: '2026-11-23T17:00:00+01:00' },
      idempotencyKey: actionKey('done', push),
      confirmation: 'Done: Call the bank',
    });
  });

  it('snoozes that occurrence for 15 minutes or an hour', () => {
    expect(clickOutcome('snooze_15m', push)).toMatchObject({
      path: '/api/v1/reminders/r-7k2p/snooze',
      body: { minutes: 15, occurrence: '2026-11-23T17:00:00+01:00' },
    });
    expect(clickOutcome('snooze_1h', push)).toMatchObject({ body: { minutes: 60 } });
  });

  it('keys each action on each occurrence once, in a shape the companion accepts', () => {
    const lineId = { ...push, reminder_id: 'Inbox.md::call mum about the trip ✈ '.repeat(20) };
    const keys = [
      actionKey('done', push),
      actionKey('snooze_15m', push),
      actionKey('snooze_1h', push),
      actionKey('done', { ...push, occurrence: '2026-11-30T17:00:00+01:00' }),
      actionKey('done', { ...push, reminder_id: 'r-x81c' }),
      actionKey('done', lineId),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
    // A double tap sends the same key.
    expect(actionKey('snooze_15m', { ...push })).toBe(keys[1]);
  });

  it('escapes reminder ids in the path', () => {
    expect(clickOutcome('done', { ...push, reminder_id: 'Inbox.md::a/b?c' })).toMatchObject({
      path: '/api/v1/reminders/Inbox.md%3A%3Aa%2Fb%3Fc/done',
    });
  });

  it('opens the note for a tap on the notification or the open action', () => {
    expect(clickOutcome('', push)).toEqual({ kind: 'open', url: push.deep_link });
    expect(clickOutcome('open', push)).toEqual({ kind: 'open', url: push.deep_link });
  });

  it('opens only obsidian:// links and the page itself', () => {
    expect(safeOpenUrl('javascript:alert(1)')).toBe('/');
    expect(safeOpenUrl('https://evil.example/')).toBe('/');
    expect(safeOpenUrl('//evil.example/')).toBe('/');
    expect(safeOpenUrl('/#missed')).toBe('/#missed');
  });
});

describe('tokenFromFragment', () => {
  it('reads the token of a pairing link', () => {
    expect(tokenFromFragment('#token=abc-DEF_123')).toBe('abc-DEF_123');
    expect(tokenFromFragment('token=abc')).toBe('abc');
  });

  it.each(['', '#', '#token=', '#token=%20', '#other=1'])('finds none in %j', (hash) => {
    expect(tokenFromFragment(hash)).toBeNull();
  });
});
