import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  AnswerRequest,
  AnswerResponse,
  ChatEvent,
  Citation,
  EmbeddingsRequest,
  EmbeddingsResponse,
  ErrorEnvelope,
  HealthResponse,
  MissedResponse,
  ModelsResponse,
  NoteCreate,
  OccurrencesQuery,
  OccurrencesResponse,
  PushKeyResponse,
  PushPayload,
  PushSubscriptionCreate,
  Reminder,
  ReminderCreate,
  ReminderPatch,
  SearchQuery,
  SearchResponse,
  SnoozeRequest,
  StatusResponse,
  checkSchema,
} from '../../../shared/protocol/index';

// A real browser subscription shape (keys from the Web Push test vectors, RFC 8291 §5).
const p256dh =
  'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4';
const auth = 'BTBZMqHH6r4Tts7J_aSIgg';
const subscription = {
  endpoint: 'https://fcm.googleapis.com/fcm/send/abc:APA91b',
  expirationTime: null,
  keys: { p256dh, auth },
};

const noteCitation = {
  type: 'note',
  path: 'Travel/Visa rules.md',
  title: 'Visa rules summary',
  id: '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
  heading: 'Key points',
  lines: [12, 18],
  excerpt: 'Fee is $50 for standard processing…',
  score: 0.83,
};
const pdfCitation = {
  type: 'pdf',
  path: 'Attachments/manual.pdf',
  title: 'Manual',
  page: 12,
  excerpt: 'Press the button',
  score: 0.5,
};
const reminder = {
  id: '5b0e4d2c',
  title: 'Call the bank',
  due: '2026-11-23T17:00:00+01:00',
  timezone: 'Europe/Berlin',
  repeat: 'FREQ=WEEKLY;BYDAY=MO',
  path: 'Reminders/call-the-bank.md',
  status: 'active',
};

interface Case {
  name: string;
  schema: TSchema;
  value: unknown;
  /** Expected field of the first violation; omitted for values that must pass. */
  field?: string;
}

const accepted: Case[] = [
  { name: 'health', schema: HealthResponse, value: { status: 'ok' } },
  { name: 'note citation (docs/search.md)', schema: Citation, value: noteCitation },
  { name: 'pdf citation', schema: Citation, value: pdfCitation },
  {
    name: 'status (companion/README.md)',
    schema: StatusResponse,
    value: {
      version: '0.1.0',
      index: {
        files: 10,
        chunks: 40,
        pending: 0,
        failed: [{ path: 'a.md', error: 'line 3: front matter: bad YAML' }],
        embedding: { model: 'use-lite', dims: 512 },
        semantic: {
          state: 'ready',
          provider: 'builtin',
          model: 'use-lite',
          dims: 512,
          embedded: 40,
          total: 40,
          reason: null,
        },
        excluded: [
          { kind: 'chats', folder: 'Cairn/Chats', files: 2, setting: 'CAIRN_SEARCH_CHATS=1' },
        ],
      },
      scheduler: { reminders: 3, next_fire: '2026-11-23T17:00:00+01:00' },
      push: { subscriptions: 1 },
    },
  },
  {
    name: 'status, keyword-only, nothing scheduled',
    schema: StatusResponse,
    value: {
      version: '0.1.0',
      index: {
        files: 0,
        chunks: 0,
        pending: 2,
        failed: [],
        embedding: null,
        semantic: {
          state: 'off',
          provider: 'none',
          model: null,
          dims: null,
          embedded: 0,
          total: 0,
          reason: 'keyword-only by choice (CAIRN_EMBEDDINGS=none)',
        },
        excluded: [],
      },
      scheduler: { reminders: 0, next_fire: null },
      push: { subscriptions: 0 },
    },
  },
  { name: 'search query', schema: SearchQuery, value: { q: 'visa fee' } },
  {
    name: 'search query, every filter',
    schema: SearchQuery,
    value: {
      q: 'visa',
      limit: 50,
      type: 'pdf',
      folder: 'Travel',
      tag: 'travel/visa',
      from: '2026-01-01',
      to: '2026-11-22T10:00:00Z',
      cursor: 'abc',
    },
  },
  {
    name: 'search response',
    schema: SearchResponse,
    value: {
      results: [{ citation: noteCitation, score: 0.83 }],
      next_cursor: null,
      mode: 'hybrid',
    },
  },
  { name: 'answer request', schema: AnswerRequest, value: { question: 'What is the fee?' } },
  {
    name: 'answer response',
    schema: AnswerResponse,
    value: { answer: '> Fee is $50', citations: [noteCitation, pdfCitation], summarized: false },
  },
  {
    name: 'reminder create, offset',
    schema: ReminderCreate,
    value: { title: 'Call the bank', due: '2026-11-23T17:00:00+01:00' },
  },
  {
    name: 'reminder create, local + zone + rule',
    schema: ReminderCreate,
    value: {
      title: 'Standup',
      due: '2026-11-23T09:30',
      timezone: 'America/New_York',
      repeat: 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR',
    },
  },
  {
    name: 'reminder create, space separator',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-11-23 17:00' },
  },
  { name: 'reminder (companion/README.md)', schema: Reminder, value: reminder },
  {
    name: 'reminder, one-off with next_fire',
    schema: Reminder,
    value: { ...reminder, repeat: null, next_fire: null, source: 'inline', line: 4 },
  },
  { name: 'reminder patch', schema: ReminderPatch, value: { repeat: null } },
  { name: 'occurrences query, empty', schema: OccurrencesQuery, value: {} },
  {
    name: 'occurrences query, 1000',
    schema: OccurrencesQuery,
    value: { count: 1000, from: '1997-09-02T09:00' },
  },
  {
    name: 'occurrences (companion/README.md)',
    schema: OccurrencesResponse,
    value: { occurrences: ['1997-09-02T09:00:00-04:00', '1997-09-03T09:00:00-04:00'] },
  },
  { name: 'snooze', schema: SnoozeRequest, value: { minutes: 15 } },
  {
    name: 'missed',
    schema: MissedResponse,
    value: {
      missed: [
        {
          reminder_id: 'r-7k2p',
          title: 'Call',
          path: 'a.md',
          occurrence: '2026-11-20T09:00:00Z',
          reason: 'expired',
        },
        {
          reminder_id: 'a.md:Call',
          title: 'Call',
          path: 'a.md',
          line: 3,
          occurrence: null,
          reason: 'unresolved',
          detail: 'natural language',
        },
      ],
      next_cursor: null,
    },
  },
  {
    name: 'note create',
    schema: NoteCreate,
    value: {
      title: 'Visa rules summary',
      body: '- valid 90 days',
      tags: ['visa', 'travel'],
      folder: 'Travel',
    },
  },
  { name: 'note create, empty body', schema: NoteCreate, value: { title: 'Empty', body: '' } },
  { name: 'push subscription from a browser', schema: PushSubscriptionCreate, value: subscription },
  {
    name: 'push subscription, padded keys and name',
    schema: PushSubscriptionCreate,
    value: {
      endpoint: subscription.endpoint,
      keys: { p256dh: `${p256dh}=`, auth: `${auth}==` },
      name: 'Pixel',
    },
  },
  { name: 'push key', schema: PushKeyResponse, value: { public_key: p256dh } },
  {
    name: 'push payload (docs/delivery.md)',
    schema: PushPayload,
    value: {
      title: 'Call the bank',
      body: 'Due 17:00',
      reminder_id: 'r-7k2p',
      occurrence: '2026-11-23T17:00:00+01:00',
      deep_link: 'obsidian://open?vault=V&file=a.md#^r-7k2p',
      actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
    },
  },
  {
    name: 'embeddings, one string',
    schema: EmbeddingsRequest,
    value: { input: 'hello', model: 'use-lite' },
  },
  {
    name: 'embeddings, batch base64',
    schema: EmbeddingsRequest,
    value: { input: ['a', 'b'], model: 'use-lite', encoding_format: 'base64' },
  },
  {
    name: 'embeddings response',
    schema: EmbeddingsResponse,
    value: {
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, -0.2] }],
      model: 'use-lite',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    },
  },
  {
    name: 'models',
    schema: ModelsResponse,
    value: {
      object: 'list',
      data: [{ id: 'use-lite', object: 'model', created: 0, owned_by: 'cairn' }],
    },
  },
  {
    name: 'error envelope',
    schema: ErrorEnvelope,
    value: { error: { code: 'VALIDATION_ERROR', message: 'q is required', field: 'q' } },
  },
  { name: 'chat token event', schema: ChatEvent, value: { type: 'token', text: 'Hel' } },
  {
    name: 'chat tool event',
    schema: ChatEvent,
    value: {
      type: 'tool',
      name: 'create_reminder',
      args: {},
      result: { success: true, deduplicated: true, data: reminder },
    },
  },
  {
    name: 'chat citations event',
    schema: ChatEvent,
    value: { type: 'citations', citations: [noteCitation] },
  },
  {
    name: 'chat error event',
    schema: ChatEvent,
    value: { type: 'error', error: { code: 'UNAVAILABLE', message: 'no model' } },
  },
];

const rejected: Case[] = [
  {
    name: 'citation with unknown type',
    schema: Citation,
    value: { ...noteCitation, type: 'web' },
    field: '',
  },
  {
    name: 'note citation without lines',
    schema: Citation,
    value: { ...noteCitation, lines: undefined },
    field: '',
  },
  { name: 'search without q', schema: SearchQuery, value: {}, field: 'q' },
  { name: 'search with empty q', schema: SearchQuery, value: { q: '' }, field: 'q' },
  { name: 'search with blank q', schema: SearchQuery, value: { q: '   ' }, field: 'q' },
  {
    name: 'search q over 1000 chars',
    schema: SearchQuery,
    value: { q: 'a'.repeat(1001) },
    field: 'q',
  },
  { name: 'search limit 0', schema: SearchQuery, value: { q: 'a', limit: 0 }, field: 'limit' },
  { name: 'search limit 51', schema: SearchQuery, value: { q: 'a', limit: 51 }, field: 'limit' },
  { name: 'search limit 2.5', schema: SearchQuery, value: { q: 'a', limit: 2.5 }, field: 'limit' },
  {
    name: 'search unknown type',
    schema: SearchQuery,
    value: { q: 'a', type: 'web' },
    field: 'type',
  },
  {
    name: 'search bad date',
    schema: SearchQuery,
    value: { q: 'a', from: '22/11/2026' },
    field: 'from',
  },
  {
    name: 'answer extra prop',
    schema: AnswerRequest,
    value: { question: 'q', model: 'x' },
    field: 'model',
  },
  {
    name: 'answer summarize as string',
    schema: AnswerRequest,
    value: { question: 'q', summarize: 'yes' },
    field: 'summarize',
  },
  { name: 'reminder without due', schema: ReminderCreate, value: { title: 'x' }, field: 'due' },
  {
    name: 'reminder without title',
    schema: ReminderCreate,
    value: { due: '2026-11-23T17:00' },
    field: 'title',
  },
  {
    name: 'reminder title too long',
    schema: ReminderCreate,
    value: { title: 'x'.repeat(501), due: '2026-11-23T17:00' },
    field: 'title',
  },
  {
    name: 'reminder due natural language',
    schema: ReminderCreate,
    value: { title: 'x', due: 'tomorrow 5pm' },
    field: 'due',
  },
  {
    name: 'reminder due date only',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-11-23' },
    field: 'due',
  },
  {
    name: 'reminder due month 13',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-13-01T09:00' },
    field: 'due',
  },
  {
    name: 'reminder due as number',
    schema: ReminderCreate,
    value: { title: 'x', due: 1764000000000 },
    field: 'due',
  },
  {
    name: 'reminder bad zone',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-11-23T17:00', timezone: 'Berlin time' },
    field: 'timezone',
  },
  {
    name: 'reminder repeat without FREQ',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-11-23T17:00', repeat: 'BYDAY=MO' },
    field: 'repeat',
  },
  {
    name: 'reminder extra prop',
    schema: ReminderCreate,
    value: { title: 'x', due: '2026-11-23T17:00', id: 'mine' },
    field: 'id',
  },
  {
    name: 'reminder with unknown status',
    schema: Reminder,
    value: { ...reminder, status: 'snoozed' },
    field: 'status',
  },
  {
    name: 'reminder due without offset',
    schema: Reminder,
    value: { ...reminder, due: '2026-11-23T17:00' },
    field: 'due',
  },
  { name: 'empty patch', schema: ReminderPatch, value: {}, field: '' },
  {
    name: 'patch of a status that does not exist',
    schema: ReminderPatch,
    value: { status: 'gone' },
    field: 'status',
  },
  {
    name: 'occurrences count 1001',
    schema: OccurrencesQuery,
    value: { count: 1001 },
    field: 'count',
  },
  { name: 'occurrences count 0', schema: OccurrencesQuery, value: { count: 0 }, field: 'count' },
  { name: 'snooze 0 minutes', schema: SnoozeRequest, value: { minutes: 0 }, field: 'minutes' },
  {
    name: 'snooze over a year',
    schema: SnoozeRequest,
    value: { minutes: 525_601 },
    field: 'minutes',
  },
  { name: 'snooze as string', schema: SnoozeRequest, value: { minutes: '15' }, field: 'minutes' },
  { name: 'snooze missing', schema: SnoozeRequest, value: {}, field: 'minutes' },
  { name: 'note without body', schema: NoteCreate, value: { title: 't' }, field: 'body' },
  {
    name: 'note tags not an array',
    schema: NoteCreate,
    value: { title: 't', body: '', tags: 'a,b' },
    field: 'tags',
  },
  {
    name: 'note tag with space',
    schema: NoteCreate,
    value: { title: 't', body: '', tags: ['a b'] },
    field: 'tags[0]',
  },
  {
    name: 'note folder escaping the vault',
    schema: NoteCreate,
    value: { title: 't', body: '', folder: '../etc' },
    field: 'folder',
  },
  {
    name: 'note folder absolute',
    schema: NoteCreate,
    value: { title: 't', body: '', folder: '/etc' },
    field: 'folder',
  },
  {
    name: 'push http: endpoint',
    schema: PushSubscriptionCreate,
    value: { ...subscription, endpoint: 'http://push.example/x' },
    field: 'endpoint',
  },
  {
    name: 'push endpoint not a URL',
    schema: PushSubscriptionCreate,
    value: { ...subscription, endpoint: 'https:///x' },
    field: 'endpoint',
  },
  {
    name: 'push without keys',
    schema: PushSubscriptionCreate,
    value: { endpoint: subscription.endpoint },
    field: 'keys',
  },
  {
    name: 'push p256dh in standard base64',
    schema: PushSubscriptionCreate,
    value: { ...subscription, keys: { p256dh: p256dh.replace(/_/g, '/'), auth } },
    field: 'keys.p256dh',
  },
  {
    name: 'push p256dh too short',
    schema: PushSubscriptionCreate,
    value: { ...subscription, keys: { p256dh: p256dh.slice(0, 60), auth } },
    field: 'keys.p256dh',
  },
  {
    name: 'push auth with +',
    schema: PushSubscriptionCreate,
    value: { ...subscription, keys: { p256dh, auth: 'BTBZMqHH6r4Tts7J+aSIgg' } },
    field: 'keys.auth',
  },
  {
    name: 'push extra key',
    schema: PushSubscriptionCreate,
    value: { ...subscription, keys: { p256dh, auth, x: 1 } },
    field: 'keys.x',
  },
  {
    name: 'push extra prop',
    schema: PushSubscriptionCreate,
    value: { ...subscription, owner: 'me' },
    field: 'owner',
  },
  {
    name: 'embeddings without model',
    schema: EmbeddingsRequest,
    value: { input: 'x' },
    field: 'model',
  },
  {
    name: 'embeddings empty batch',
    schema: EmbeddingsRequest,
    value: { input: [], model: 'm' },
    field: 'input',
  },
  {
    name: 'embeddings numbers as input',
    schema: EmbeddingsRequest,
    value: { input: [1, 2], model: 'm' },
    field: 'input',
  },
  {
    name: 'error with unknown code',
    schema: ErrorEnvelope,
    value: { error: { code: 'TEAPOT', message: 'x' } },
    field: 'error.code',
  },
  { name: 'chat event of unknown type', schema: ChatEvent, value: { type: 'thinking' }, field: '' },
];

describe('protocol schemas', () => {
  it.each(accepted)('accepts $name', ({ schema, value }) => {
    const check = checkSchema(schema, value);
    expect(check.ok ? 'ok' : check.violation).toBe('ok');
  });

  it.each(rejected)('rejects $name, naming "$field"', ({ schema, value, field }) => {
    const check = checkSchema(schema, value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.violation.field).toBe(field);
      if (field !== '') expect(check.violation.message.startsWith(field ?? '')).toBe(true);
    }
  });
});
