import { describe, expect, it } from 'vitest';
import { routeMessage } from '../../../shared/chat/intent-router';
import { validateToolCall } from '../../../shared/chat/tool-schemas';

const NOW = Date.parse('2026-11-22T10:30:00+01:00');
const WORDS = [
  'remind',
  'me',
  'to',
  'at',
  'every',
  'each',
  'monday',
  'tomorrow',
  'in',
  '2',
  'hours',
  'note:',
  'note',
  'add',
  'to my',
  'list',
  'search',
  'find',
  'snooze',
  'mark',
  'as done',
  'done',
  'what',
  "what's",
  'due',
  'this week',
  'reminders',
  '?',
  ':',
  ',',
  'the',
  'bank',
  '9',
  '5pm',
  '17:30',
  'on the 31st',
  'every 0 days',
  'at 25:99',
  '#tag',
  '"quoted"',
  'ünïcödé',
  '🙂',
  '\n',
  '\t',
  'until',
  'for',
  'an hour',
  'titled',
  'with',
  'append',
  'complete',
  'remember that',
  '[[x]]',
];

/** Deterministic pseudo-random numbers (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('routeMessage on generated input', () => {
  it('never throws, and every tool call it returns passes the schema', () => {
    const next = random(20261122);
    for (let i = 0; i < 500; i++) {
      const count = 1 + Math.floor(next() * 14);
      const words = Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]!);
      const message = words.join(next() < 0.8 ? ' ' : '');
      const decision = routeMessage(message, { now: NOW, zone: 'Europe/Berlin' });
      expect(['tool', 'reply', 'invalid'], message).toContain(decision.kind);
      if (decision.kind === 'tool') {
        expect(validateToolCall(decision.call.name, decision.call.args).ok, message).toBe(true);
      }
      if (decision.kind === 'reply') expect(decision.text.length, message).toBeGreaterThan(0);
    }
  });

  it('handles the longest allowed message: a note takes it, a query or title names the field', () => {
    const filler = 'blah '.repeat(1598); // 7990 characters
    const route = (message: string) => routeMessage(message, { now: NOW, zone: 'UTC' });
    expect(route(`note: ${filler}`)).toMatchObject({ kind: 'tool', call: { name: 'create_note' } });
    for (const [message, field] of [
      [`search for ${filler}`.slice(0, 8000), 'query'],
      [`${filler}?`, 'question'],
      [`remind me tomorrow at 9 to ${filler}`.slice(0, 8000), 'title'],
    ]) {
      expect(route(message!), field).toMatchObject({
        kind: 'invalid',
        error: { code: 'VALIDATION_ERROR', field },
      });
    }
  });
});
