import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  ChatEvent,
  PushSubscriptionCreate,
  ReminderCreate,
  checkSchema,
  errorEnvelope,
  formatSseEvent,
  pointerToField,
  statusForError,
} from '../../../shared/protocol/index';

describe('pointerToField', () => {
  it.each([
    ['', ''],
    ['/q', 'q'],
    ['/keys/p256dh', 'keys.p256dh'],
    ['/tags/2', 'tags[2]'],
    ['/data/0/embedding/3', 'data[0].embedding[3]'],
    ['/a~1b/c~0d', 'a/b.c~d'],
  ])('%j → %j', (pointer, field) => {
    expect(pointerToField(pointer)).toBe(field);
  });
});

describe('checkSchema messages name the field and say what was expected', () => {
  it.each([
    [ReminderCreate, { title: 'x' }, 'due is required'],
    [ReminderCreate, { title: 'x', due: 'soon' }, 'due must be an ISO 8601 date-time'],
    [
      ReminderCreate,
      { title: 'x', due: '2026-11-23T17:00', colour: 'red' },
      'colour is not an allowed property',
    ],
    [
      PushSubscriptionCreate,
      { endpoint: 'http://x.example', keys: { p256dh: 'B', auth: 'a' } },
      'endpoint must be an https: URL',
    ],
  ])('%#', (schema, value, start) => {
    const check = checkSchema(schema, value);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.violation.message.startsWith(start)).toBe(true);
  });

  it('says bounds and types in words, not as TypeBox phrases them', () => {
    const schema = Type.Object({
      minutes: Type.Integer({ minimum: 1, maximum: 525_600 }),
      title: Type.String({ minLength: 1, maxLength: 5 }),
      tags: Type.Optional(Type.Array(Type.String(), { maxItems: 1 })),
    });
    const message = (value: unknown) => {
      const check = checkSchema(schema, value);
      return check.ok ? 'passed' : check.violation.message;
    };
    expect(message({ minutes: 0, title: 'a' })).toBe('minutes must be at least 1');
    expect(message({ minutes: 525_601, title: 'a' })).toBe('minutes must be at most 525600');
    expect(message({ minutes: 1.5, title: 'a' })).toBe('minutes must be a whole number');
    expect(message({ minutes: '15', title: 'a' })).toBe('minutes must be a whole number');
    expect(message({ minutes: 1, title: '' })).toBe('title must not be empty');
    expect(message({ minutes: 1, title: 'abcdef' })).toBe(
      'title must be at most 5 characters long',
    );
    expect(message({ minutes: 1, title: 'a', tags: ['x', 'y'] })).toBe(
      'tags must hold at most 1 item',
    );
  });

  it('returns the value typed when it passes', () => {
    const check = checkSchema(ReminderCreate, { title: 'Call', due: '2026-11-23T17:00' });
    expect(check).toEqual({ ok: true, value: { title: 'Call', due: '2026-11-23T17:00' } });
  });
});

describe('errorEnvelope', () => {
  it('leaves out an absent field and maps codes to statuses', () => {
    expect(errorEnvelope('NOT_FOUND', 'no such reminder')).toEqual({
      error: { code: 'NOT_FOUND', message: 'no such reminder' },
    });
    expect(errorEnvelope('VALIDATION_ERROR', 'q is required', 'q').error.field).toBe('q');
    expect(statusForError('PAYLOAD_TOO_LARGE')).toBe(413);
    expect(statusForError('UNAVAILABLE')).toBe(503);
  });
});

describe('formatSseEvent', () => {
  it('writes one event frame whose data parses back to a valid event', () => {
    const event = { type: 'token', text: 'line one\nline two' } as const;
    const frame = formatSseEvent(event);
    const lines = frame.split('\n');
    expect(lines[0]).toBe('event: token');
    expect(lines[1]?.startsWith('data: ')).toBe(true);
    expect(lines.slice(2)).toEqual(['', '']);
    const parsed: unknown = JSON.parse(lines[1]!.slice('data: '.length));
    expect(checkSchema(ChatEvent, parsed)).toEqual({ ok: true, value: event });
  });
});
