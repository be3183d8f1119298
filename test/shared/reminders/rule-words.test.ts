import { describe, expect, it } from 'vitest';
import { CUSTOM_RULE_TEXT, describeRule, parseEveryPhrase } from '../../../shared/reminders';

describe('describeRule', () => {
  it.each([
    ['FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0', 'every Monday at 08:00'],
    [
      'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30',
      'every Monday, Wednesday and Friday at 09:30',
    ],
    ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=7;BYMINUTE=15', 'every weekday at 07:15'],
    ['FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10;BYMINUTE=0', 'every Saturday and Sunday at 10:00'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0', 'every 2 weeks on Tuesday at 10:00'],
    ['FREQ=DAILY;BYHOUR=21;BYMINUTE=0', 'every day at 21:00'],
    ['FREQ=DAILY;INTERVAL=3;BYHOUR=6;BYMINUTE=5', 'every 3 days at 06:05'],
    ['FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0', 'every month on the 1st at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=22;BYHOUR=9;BYMINUTE=0', 'every month on the 22nd at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=13;BYHOUR=9;BYMINUTE=0', 'every month on the 13th at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=0', 'every month on the last day at 18:00'],
    ['FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0', 'every month on the first Monday at 09:00'],
    ['FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0', 'every month on the last Friday at 17:00'],
    [
      'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=8;BYMINUTE=0',
      'every year on 25 December at 08:00',
    ],
    ['FREQ=HOURLY;BYMINUTE=0', 'every hour'],
    ['FREQ=HOURLY;INTERVAL=2', 'every 2 hours'],
    ['FREQ=MINUTELY;INTERVAL=15', 'every 15 minutes'],
    ['FREQ=WEEKLY;BYDAY=TU;COUNT=5;BYHOUR=9;BYMINUTE=0', 'every Tuesday at 09:00, 5 times'],
    [
      'FREQ=DAILY;UNTIL=20270101T000000Z;BYHOUR=9;BYMINUTE=0',
      'every day at 09:00, until 2027-01-01',
    ],
  ])('%s → %s', (rule, words) => {
    expect(describeRule(rule)).toBe(words);
  });

  it('takes the time of day from the start when the rule has none', () => {
    expect(describeRule('FREQ=WEEKLY;BYDAY=TU', '2026-12-01T10:00')).toBe('every Tuesday at 10:00');
    expect(describeRule('FREQ=WEEKLY', '2026-12-01T10:00')).toBe('every week at 10:00');
  });

  it('never shows the rule itself', () => {
    for (const rule of ['FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO,TU', 'FREQ=SECONDLY', 'nonsense']) {
      expect(describeRule(rule)).toBe(CUSTOM_RULE_TEXT);
    }
  });

  it('puts every phrase the inline grammar reads back into words', () => {
    for (const phrase of [
      'monday 09:00',
      'weekday 7am',
      '2 weeks on tuesday 10:00',
      'month on the last day 18:00',
    ]) {
      const parsed = parseEveryPhrase(phrase);
      if (!parsed.ok) throw new Error(parsed.message);
      expect(describeRule(parsed.rrule)).not.toBe(CUSTOM_RULE_TEXT);
    }
  });
});
