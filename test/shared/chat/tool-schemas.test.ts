import { describe, expect, it } from 'vitest';
import {
  TOOL_NAMES,
  TOOL_SCHEMA_VERSION,
  toolFailure,
  toolSpecs,
  toolSuccess,
  validateToolCall,
} from '../../../shared/chat/index';

describe('validateToolCall accepts well-formed calls', () => {
  it.each([
    ['search', { query: 'visa fee', limit: 5, type: 'note' }],
    ['answer', { question: 'What is the visa fee?' }],
    ['create_note', { title: 'Visa rules summary', body: '- valid 90 days', tags: ['visa'] }],
    ['append_to_note', { note: 'Travel/Visa rules.md', text: '- fee $50', heading: 'Key points' }],
    [
      'create_reminder',
      { title: 'Call the bank', due: '2026-11-23T17:00', timezone: 'Europe/Berlin' },
    ],
    [
      'create_reminder',
      { title: 'Standup', due: '2026-11-23T09:30:00+01:00', repeat: 'FREQ=DAILY' },
    ],
    ['list_reminders', {}],
    ['list_reminders', { from: '2026-11-23', to: '2026-11-29', status: 'active' }],
    ['snooze_reminder', { id: 'r-7k2p', minutes: 15 }],
    ['complete_reminder', { id: '5b0e4d2c' }],
  ])('%s %j', (name, args) => {
    const check = validateToolCall(name, args);
    expect(check).toEqual({ ok: true, call: { name, args } });
  });

  it('parses JSON-string arguments (OpenAI style)', () => {
    const check = validateToolCall('complete_reminder', '{"id":"r-1"}');
    expect(check).toEqual({ ok: true, call: { name: 'complete_reminder', args: { id: 'r-1' } } });
  });

  it('reads top-level nulls as "not given"', () => {
    const check = validateToolCall('search', { query: 'bank', tag: null, limit: null });
    expect(check).toEqual({ ok: true, call: { name: 'search', args: { query: 'bank' } } });
  });

  it('treats missing arguments as an empty object', () => {
    expect(validateToolCall('list_reminders', undefined).ok).toBe(true);
    expect(validateToolCall('list_reminders', '').ok).toBe(true);
  });
});

describe('validateToolCall rejects bad calls with a VALIDATION_ERROR naming the field', () => {
  it.each([
    ['delete_vault', {}, 'name'],
    ['search', '{"query": ', 'arguments'],
    ['search', [1, 2], 'arguments'],
    ['search', 'just words', 'arguments'],
    ['search', {}, 'query'],
    ['search', { query: '  ' }, 'query'],
    ['search', { query: 'x', limit: '5' }, 'limit'],
    ['search', { query: 'x', limit: 51 }, 'limit'],
    ['search', { query: 'x', type: 'email' }, 'type'],
    ['answer', { question: 'q', summarize: true }, 'summarize'],
    ['create_note', { title: 'x' }, 'body'],
    ['create_note', { title: 'x', body: '', folder: '../outside' }, 'folder'],
    ['create_note', { title: 'x', body: '', tags: ['ok', 'not ok'] }, 'tags[1]'],
    ['append_to_note', { note: 'a.md' }, 'text'],
    ['create_reminder', { title: 'x', due: 'next monday at 8' }, 'due'],
    ['create_reminder', { title: '', due: '2026-11-23T17:00' }, 'title'],
    ['create_reminder', { title: 'x', due: '2026-11-23T17:00', repeat: 'every monday' }, 'repeat'],
    ['create_reminder', { title: 'x', due: '2026-11-23T17:00', timezone: 'CET time' }, 'timezone'],
    ['list_reminders', { status: 'late' }, 'status'],
    ['snooze_reminder', { id: 'r-1' }, 'minutes'],
    ['snooze_reminder', { id: 'r-1', minutes: 0 }, 'minutes'],
    ['snooze_reminder', { id: 'r-1', minutes: 1.5 }, 'minutes'],
    ['complete_reminder', { id: 'r-1', note: 'extra' }, 'note'],
  ])('%s %j → %s', (name, args, field) => {
    const check = validateToolCall(name, args);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.error.code).toBe('VALIDATION_ERROR');
      expect(check.error.field).toBe(field);
      expect(check.error.message).toContain(field === 'name' ? name : field);
    }
  });
});

describe('result envelopes', () => {
  it('marks deduplicated writes and only those', () => {
    expect(toolSuccess({ id: 'a' })).toEqual({ success: true, data: { id: 'a' } });
    expect(toolSuccess({ id: 'a' }, { deduplicated: true })).toEqual({
      success: true,
      deduplicated: true,
      data: { id: 'a' },
    });
    expect(toolFailure({ code: 'NOT_FOUND', message: 'no reminder r-1', field: 'id' })).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'no reminder r-1', field: 'id' },
    });
  });
});

describe('toolSpecs', () => {
  it('lists the eight docs/chat.md tools, the three §8 memory tools, create_task and memory_to_reminder (docs/tasks.md) in OpenAI/Ollama function format with plain JSON parameters', () => {
    const specs = toolSpecs();
    expect(TOOL_SCHEMA_VERSION).toBe('1.0');
    expect(specs.map((spec) => spec.function.name)).toEqual([
      'search',
      'answer',
      'create_note',
      'append_to_note',
      'create_reminder',
      'create_task',
      'list_reminders',
      'snooze_reminder',
      'complete_reminder',
      'remember',
      'forget',
      'recall',
      'memory_to_reminder',
    ]);
    expect(TOOL_NAMES).toHaveLength(13);
    for (const spec of specs) {
      expect(spec.type).toBe('function');
      expect(spec.function.description.length).toBeGreaterThan(10);
      expect(spec.function.parameters).toMatchObject({
        type: 'object',
        additionalProperties: false,
      });
      expect(Object.getOwnPropertySymbols(spec.function.parameters)).toEqual([]);
      expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
    }
    expect(specs[4]?.function.parameters).toMatchObject({ required: ['title', 'due'] });
  });
});
