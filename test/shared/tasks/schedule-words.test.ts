import { describe, expect, it } from 'vitest';
import { describeTaskSchedule } from '../../../shared/tasks';

describe('describeTaskSchedule', () => {
  it.each([
    ['2026-11-28T08:00', 'once on 28 November 2026 at 08:00'],
    ['2026-11-28 08:00', 'once on 28 November 2026 at 08:00'],
    ['2026-11-28T08:00+01:00', 'once on 28 November 2026 at 08:00 (+01:00)'],
    ['2026-11-28T07:00Z', 'once on 28 November 2026 at 07:00 (UTC)'],
    ['0 17 * * FRI', 'every Friday at 17:00'],
    ['0 8 * * MON', 'every Monday at 08:00'],
    ['30 7 * * *', 'every day at 07:30'],
    ['0 9 * * 1-5', 'every weekday (Monday to Friday) at 09:00'],
    ['0 10 * * SAT,SUN', 'every weekend day at 10:00'],
    ['0 18 * * 7,3', 'every Wednesday and Sunday at 18:00'],
    ['0 9 1 * *', 'every month on the 1st at 09:00'],
    ['0 9 22 * *', 'every month on the 22nd at 09:00'],
    ['0 9 11 * *', 'every month on the 11th at 09:00'],
    ['*/30 * * * *', 'every 30 minutes'],
    ['@daily', 'every day at 00:00'],
    ['0 9 1 1 *', 'cron 0 9 1 1 *'],
    ['5 4 * * 5-2', 'cron 5 4 * * 5-2'],
    ['RRULE:FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=9;BYMINUTE=0', 'every Saturday and Sunday at 09:00'],
  ])('%s → %s', (schedule, words) => {
    expect(describeTaskSchedule(schedule)).toBe(words);
  });

  it('takes an RRULE’s time of day from its start', () => {
    expect(describeTaskSchedule('RRULE:FREQ=MONTHLY;BYMONTHDAY=1', '2026-12-01T09:00')).toBe(
      'every month on the 1st at 09:00',
    );
  });
});
