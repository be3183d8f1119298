import { describe, expect, it } from 'vitest';
import { parseReminderPhrase, REMINDER_OPENER } from '../../../shared/chat/reminder-phrase';
import { zoneNow } from '../../../shared/chat/zone-calendar';

// Friday 27 November 2026, 11:00 in Berlin.
const clock = zoneNow(Date.parse('2026-11-27T10:00:00Z'), 'Europe/Berlin');

describe('parseReminderPhrase: ambiguous times', () => {
  it.each([
    [
      'water the ferns tomorrow at 5',
      '2026-11-28T05:00',
      '"tomorrow at 5" has no am/pm: read as 05:00',
    ],
    // At 11:00 a bare "at 5" is the next 05:00 (24-hour clock, docs/chat.md), and still a guess.
    ['at 5 call mum', '2026-11-28T05:00', '"at 5" has no am/pm: read as 05:00'],
    ['lunch tomorrow at 12', '2026-11-28T12:00', '"tomorrow at 12" has no am/pm: read as 12:00'],
    [
      'run next friday at 7:30',
      '2026-12-04T07:30',
      '"next friday at 7:30" has no am/pm: read as 07:30',
    ],
  ])('%s → %s, said to be a guess', (text, due, ambiguous) => {
    expect(parseReminderPhrase(text, clock)).toMatchObject({ ok: true, due, ambiguous });
  });

  it.each([
    ['call the bank tomorrow at 5pm', '2026-11-28T17:00'],
    ['call the bank tomorrow at 17:00', '2026-11-28T17:00'],
    ['call the bank tomorrow at 05:30', '2026-11-28T05:30'],
    ['call the bank in 2 hours', '2026-11-27T13:00'],
    ['call the bank tomorrow morning', '2026-11-28T09:00'],
  ])('%s → %s, no guess', (text, due) => {
    const phrase = parseReminderPhrase(text, clock);
    expect(phrase).toMatchObject({ ok: true, due });
    expect(phrase).not.toHaveProperty('ambiguous');
  });

  it('a bare hour beside a repeat is a guess too', () => {
    expect(parseReminderPhrase('at 9 every monday standup', clock)).toMatchObject({
      ok: true,
      repeat: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      ambiguous: '"at 9" has no am/pm: read as 09:00',
    });
  });

  it('REMINDER_OPENER takes "remind me to" off the front', () => {
    expect('remind me to call the bank at 5pm'.replace(REMINDER_OPENER, '')).toBe(
      'call the bank at 5pm',
    );
  });
});
