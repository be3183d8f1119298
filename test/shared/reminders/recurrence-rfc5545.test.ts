// The RRULE examples of RFC 5545 §3.8.5.3 (DTSTART;TZID=America/New_York), with the occurrence
// lists the RFC gives, EDT/EST offsets included. Run under several process time zones: the
// results must not depend on TZ.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../../shared/reminders/local-time';
import { nextOccurrences } from '../../../shared/reminders/recurrence';

const NEW_YORK = 'America/New_York';
const LONG_AGO = Date.UTC(1990, 0, 1);

type Abbreviation = 'EDT' | 'EST';

/** `at9('EDT', '1997-09', [2, 3])` → the RFC's "(1997 9:00 AM EDT) September 2,3" as ISO strings. */
function at9(abbreviation: Abbreviation, yearMonth: string, days: number[]): string[] {
  const offset = abbreviation === 'EDT' ? '-04:00' : '-05:00';
  return days.map((day) => `${yearMonth}-${String(day).padStart(2, '0')}T09:00:00${offset}`);
}

function range(first: number, last: number, step = 1): number[] {
  const days: number[] = [];
  for (let day = first; day <= last; day += step) days.push(day);
  return days;
}

function times(date: string, abbreviation: Abbreviation, hhmm: string[]): string[] {
  const offset = abbreviation === 'EDT' ? '-04:00' : '-05:00';
  return hhmm.map((time) => `${date}T${time}:00${offset}`);
}

function expand(rrule: string, start: string, n: number): string[] {
  return nextOccurrences({ rrule, start }, LONG_AGO, NEW_YORK, n).map((instant) =>
    formatInZone(instant, NEW_YORK),
  );
}

interface Example {
  title: string;
  rrule: string;
  start: string;
  /** The whole list for finite rules; the first occurrences for open-ended ones. */
  expected: string[];
  /** Open-ended rules are compared on their first `expected.length` occurrences. */
  openEnded?: boolean;
}

const examples: Example[] = [
  {
    title: 'Daily for 10 occurrences',
    rrule: 'FREQ=DAILY;COUNT=10',
    start: '1997-09-02T09:00',
    expected: at9('EDT', '1997-09', range(2, 11)),
  },
  {
    title: 'Daily until December 24, 1997',
    rrule: 'FREQ=DAILY;UNTIL=19971224T000000Z',
    start: '1997-09-02T09:00',
    expected: [
      ...at9('EDT', '1997-09', range(2, 30)),
      ...at9('EDT', '1997-10', range(1, 25)),
      ...at9('EST', '1997-10', range(26, 31)),
      ...at9('EST', '1997-11', range(1, 30)),
      ...at9('EST', '1997-12', range(1, 23)),
    ],
  },
  {
    title: 'Every other day - forever',
    rrule: 'FREQ=DAILY;INTERVAL=2',
    start: '1997-09-02T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', range(2, 30, 2)),
      ...at9('EDT', '1997-10', range(2, 24, 2)),
      ...at9('EST', '1997-10', [26, 28, 30]),
      ...at9('EST', '1997-11', range(1, 29, 2)),
      ...at9('EST', '1997-12', [1, 3]),
    ],
  },
  {
    title: 'Every 10 days, 5 occurrences',
    rrule: 'FREQ=DAILY;INTERVAL=10;COUNT=5',
    start: '1997-09-02T09:00',
    expected: [...at9('EDT', '1997-09', [2, 12, 22]), ...at9('EDT', '1997-10', [2, 12])],
  },
  ...[
    'FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA',
    'FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1',
  ].map((rrule): Example => ({
    title: `Every day in January, for 3 years (${rrule.slice(0, 11)})`,
    rrule,
    start: '1998-01-01T09:00',
    expected: [
      ...at9('EST', '1998-01', range(1, 31)),
      ...at9('EST', '1999-01', range(1, 31)),
      ...at9('EST', '2000-01', range(1, 31)),
    ],
  })),
  {
    title: 'Weekly for 10 occurrences',
    rrule: 'FREQ=WEEKLY;COUNT=10',
    start: '1997-09-02T09:00',
    expected: [
      ...at9('EDT', '1997-09', [2, 9, 16, 23, 30]),
      ...at9('EDT', '1997-10', [7, 14, 21]),
      ...at9('EST', '1997-10', [28]),
      ...at9('EST', '1997-11', [4]),
    ],
  },
  {
    title: 'Weekly until December 24, 1997',
    rrule: 'FREQ=WEEKLY;UNTIL=19971224T000000Z',
    start: '1997-09-02T09:00',
    expected: [
      ...at9('EDT', '1997-09', [2, 9, 16, 23, 30]),
      ...at9('EDT', '1997-10', [7, 14, 21]),
      ...at9('EST', '1997-10', [28]),
      ...at9('EST', '1997-11', [4, 11, 18, 25]),
      ...at9('EST', '1997-12', [2, 9, 16, 23]),
    ],
  },
  {
    title: 'Every other week - forever',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;WKST=SU',
    start: '1997-09-02T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [2, 16, 30]),
      ...at9('EDT', '1997-10', [14]),
      ...at9('EST', '1997-10', [28]),
      ...at9('EST', '1997-11', [11, 25]),
      ...at9('EST', '1997-12', [9, 23]),
      ...at9('EST', '1998-01', [6, 20]),
      ...at9('EST', '1998-02', [3, 17]),
    ],
  },
  ...[
    'FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH',
    'FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH',
  ].map((rrule): Example => ({
    title: `Weekly on Tuesday and Thursday for five weeks (${rrule.slice(12, 17)})`,
    rrule,
    start: '1997-09-02T09:00',
    expected: [
      ...at9('EDT', '1997-09', [2, 4, 9, 11, 16, 18, 23, 25, 30]),
      ...at9('EDT', '1997-10', [2]),
    ],
  })),
  {
    title: 'Every other week on Monday, Wednesday, and Friday until December 24, 1997',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR',
    start: '1997-09-01T09:00',
    expected: [
      ...at9('EDT', '1997-09', [1, 3, 5, 15, 17, 19, 29]),
      ...at9('EDT', '1997-10', [1, 3, 13, 15, 17]),
      ...at9('EST', '1997-10', [27, 29, 31]),
      ...at9('EST', '1997-11', [10, 12, 14, 24, 26, 28]),
      ...at9('EST', '1997-12', [8, 10, 12, 22]),
    ],
  },
  {
    title: 'Every other week on Tuesday and Thursday, for 8 occurrences',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH',
    start: '1997-09-02T09:00',
    expected: [...at9('EDT', '1997-09', [2, 4, 16, 18, 30]), ...at9('EDT', '1997-10', [2, 14, 16])],
  },
  {
    title: 'Monthly on the first Friday for 10 occurrences',
    rrule: 'FREQ=MONTHLY;COUNT=10;BYDAY=1FR',
    start: '1997-09-05T09:00',
    expected: [
      ...at9('EDT', '1997-09', [5]),
      ...at9('EDT', '1997-10', [3]),
      ...at9('EST', '1997-11', [7]),
      ...at9('EST', '1997-12', [5]),
      ...at9('EST', '1998-01', [2]),
      ...at9('EST', '1998-02', [6]),
      ...at9('EST', '1998-03', [6]),
      ...at9('EST', '1998-04', [3]),
      ...at9('EDT', '1998-05', [1]),
      ...at9('EDT', '1998-06', [5]),
    ],
  },
  {
    title: 'Monthly on the first Friday until December 24, 1997',
    rrule: 'FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR',
    start: '1997-09-05T09:00',
    expected: [
      ...at9('EDT', '1997-09', [5]),
      ...at9('EDT', '1997-10', [3]),
      ...at9('EST', '1997-11', [7]),
      ...at9('EST', '1997-12', [5]),
    ],
  },
  {
    title: 'Every other month on the first and last Sunday of the month for 10 occurrences',
    rrule: 'FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU',
    start: '1997-09-07T09:00',
    expected: [
      ...at9('EDT', '1997-09', [7, 28]),
      ...at9('EST', '1997-11', [2, 30]),
      ...at9('EST', '1998-01', [4, 25]),
      ...at9('EST', '1998-03', [1, 29]),
      ...at9('EDT', '1998-05', [3, 31]),
    ],
  },
  {
    title: 'Monthly on the second-to-last Monday of the month for 6 months',
    rrule: 'FREQ=MONTHLY;COUNT=6;BYDAY=-2MO',
    start: '1997-09-22T09:00',
    expected: [
      ...at9('EDT', '1997-09', [22]),
      ...at9('EDT', '1997-10', [20]),
      ...at9('EST', '1997-11', [17]),
      ...at9('EST', '1997-12', [22]),
      ...at9('EST', '1998-01', [19]),
      ...at9('EST', '1998-02', [16]),
    ],
  },
  {
    title: 'Monthly on the third-to-the-last day of the month, forever',
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=-3',
    start: '1997-09-28T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [28]),
      ...at9('EST', '1997-10', [29]),
      ...at9('EST', '1997-11', [28]),
      ...at9('EST', '1997-12', [29]),
      ...at9('EST', '1998-01', [29]),
      ...at9('EST', '1998-02', [26]),
    ],
  },
  {
    title: 'Monthly on the 2nd and 15th of the month for 10 occurrences',
    rrule: 'FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15',
    start: '1997-09-02T09:00',
    expected: [
      ...at9('EDT', '1997-09', [2, 15]),
      ...at9('EDT', '1997-10', [2, 15]),
      ...at9('EST', '1997-11', [2, 15]),
      ...at9('EST', '1997-12', [2, 15]),
      ...at9('EST', '1998-01', [2, 15]),
    ],
  },
  {
    title: 'Monthly on the first and last day of the month for 10 occurrences',
    rrule: 'FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1',
    start: '1997-09-30T09:00',
    expected: [
      ...at9('EDT', '1997-09', [30]),
      ...at9('EDT', '1997-10', [1]),
      ...at9('EST', '1997-10', [31]),
      ...at9('EST', '1997-11', [1, 30]),
      ...at9('EST', '1997-12', [1, 31]),
      ...at9('EST', '1998-01', [1, 31]),
      ...at9('EST', '1998-02', [1]),
    ],
  },
  {
    title: 'Every 18 months on the 10th thru 15th of the month for 10 occurrences',
    rrule: 'FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15',
    start: '1997-09-10T09:00',
    expected: [...at9('EDT', '1997-09', range(10, 15)), ...at9('EST', '1999-03', range(10, 13))],
  },
  {
    title: 'Every Tuesday, every other month',
    rrule: 'FREQ=MONTHLY;INTERVAL=2;BYDAY=TU',
    start: '1997-09-02T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [2, 9, 16, 23, 30]),
      ...at9('EST', '1997-11', [4, 11, 18, 25]),
      ...at9('EST', '1998-01', [6, 13, 20, 27]),
      ...at9('EST', '1998-03', [3, 10, 17, 24, 31]),
    ],
  },
  {
    title: 'Yearly in June and July for 10 occurrences',
    rrule: 'FREQ=YEARLY;COUNT=10;BYMONTH=6,7',
    start: '1997-06-10T09:00',
    expected: ['1997', '1998', '1999', '2000', '2001'].flatMap((year) => [
      ...at9('EDT', `${year}-06`, [10]),
      ...at9('EDT', `${year}-07`, [10]),
    ]),
  },
  {
    title: 'Every other year on January, February, and March for 10 occurrences',
    rrule: 'FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3',
    start: '1997-03-10T09:00',
    expected: [
      ...at9('EST', '1997-03', [10]),
      ...['1999', '2001', '2003'].flatMap((year) =>
        ['01', '02', '03'].flatMap((month) => at9('EST', `${year}-${month}`, [10])),
      ),
    ],
  },
  {
    title: 'Every third year on the 1st, 100th, and 200th day for 10 occurrences',
    rrule: 'FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200',
    start: '1997-01-01T09:00',
    expected: [
      ...at9('EST', '1997-01', [1]),
      ...at9('EDT', '1997-04', [10]),
      ...at9('EDT', '1997-07', [19]),
      ...at9('EST', '2000-01', [1]),
      ...at9('EDT', '2000-04', [9]),
      ...at9('EDT', '2000-07', [18]),
      ...at9('EST', '2003-01', [1]),
      ...at9('EDT', '2003-04', [10]),
      ...at9('EDT', '2003-07', [19]),
      ...at9('EST', '2006-01', [1]),
    ],
  },
  {
    title: 'Every 20th Monday of the year, forever',
    rrule: 'FREQ=YEARLY;BYDAY=20MO',
    start: '1997-05-19T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-05', [19]),
      ...at9('EDT', '1998-05', [18]),
      ...at9('EDT', '1999-05', [17]),
    ],
  },
  {
    title: 'Monday of week number 20, forever',
    rrule: 'FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO',
    start: '1997-05-12T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-05', [12]),
      ...at9('EDT', '1998-05', [11]),
      ...at9('EDT', '1999-05', [17]),
    ],
  },
  {
    title: 'Every Thursday in March, forever',
    rrule: 'FREQ=YEARLY;BYMONTH=3;BYDAY=TH',
    start: '1997-03-13T09:00',
    openEnded: true,
    expected: [
      ...at9('EST', '1997-03', [13, 20, 27]),
      ...at9('EST', '1998-03', [5, 12, 19, 26]),
      ...at9('EST', '1999-03', [4, 11, 18, 25]),
    ],
  },
  {
    title: 'Every Thursday, but only during June, July, and August, forever',
    rrule: 'FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8',
    start: '1997-06-05T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-06', [5, 12, 19, 26]),
      ...at9('EDT', '1997-07', [3, 10, 17, 24, 31]),
      ...at9('EDT', '1997-08', [7, 14, 21, 28]),
      ...at9('EDT', '1998-06', [4, 11, 18, 25]),
      ...at9('EDT', '1998-07', [2, 9, 16, 23, 30]),
      ...at9('EDT', '1998-08', [6, 13, 20, 27]),
      ...at9('EDT', '1999-06', [3, 10, 17, 24]),
      ...at9('EDT', '1999-07', [1, 8, 15, 22, 29]),
      ...at9('EDT', '1999-08', [5, 12, 19, 26]),
    ],
  },
  {
    // The RFC excludes DTSTART with an EXDATE; reminders have no EXDATE, and DTSTART always
    // counts as the first occurrence (RFC 5545 §3.3.10), so it leads the list here.
    title: 'Every Friday the 13th, forever (DTSTART kept)',
    rrule: 'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
    start: '1997-09-02T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [2]),
      ...at9('EST', '1998-02', [13]),
      ...at9('EST', '1998-03', [13]),
      ...at9('EST', '1998-11', [13]),
      ...at9('EDT', '1999-08', [13]),
      ...at9('EDT', '2000-10', [13]),
    ],
  },
  {
    title: 'The first Saturday that follows the first Sunday of the month, forever',
    rrule: 'FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13',
    start: '1997-09-13T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [13]),
      ...at9('EDT', '1997-10', [11]),
      ...at9('EST', '1997-11', [8]),
      ...at9('EST', '1997-12', [13]),
      ...at9('EST', '1998-01', [10]),
      ...at9('EST', '1998-02', [7]),
      ...at9('EST', '1998-03', [7]),
      ...at9('EDT', '1998-04', [11]),
      ...at9('EDT', '1998-05', [9]),
      ...at9('EDT', '1998-06', [13]),
    ],
  },
  {
    title:
      'Every 4 years, the first Tuesday after a Monday in November (U.S. Presidential Election day)',
    rrule: 'FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8',
    start: '1996-11-05T09:00',
    openEnded: true,
    expected: [
      ...at9('EST', '1996-11', [5]),
      ...at9('EST', '2000-11', [7]),
      ...at9('EST', '2004-11', [2]),
    ],
  },
  {
    title: 'The third instance into the month of one of Tuesday, Wednesday, or Thursday (BYSETPOS)',
    rrule: 'FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3',
    start: '1997-09-04T09:00',
    expected: [
      ...at9('EDT', '1997-09', [4]),
      ...at9('EDT', '1997-10', [7]),
      ...at9('EST', '1997-11', [6]),
    ],
  },
  {
    title: 'The second-to-last weekday of the month (BYSETPOS=-2)',
    rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2',
    start: '1997-09-29T09:00',
    openEnded: true,
    expected: [
      ...at9('EDT', '1997-09', [29]),
      ...at9('EST', '1997-10', [30]),
      ...at9('EST', '1997-11', [27]),
      ...at9('EST', '1997-12', [30]),
      ...at9('EST', '1998-01', [29]),
      ...at9('EST', '1998-02', [26]),
      ...at9('EST', '1998-03', [30]),
    ],
  },
  {
    // The RFC lists 09:00, 12:00 and 15:00, but its UNTIL (17:00Z) is 13:00 EDT; 15:00 EDT is
    // 19:00Z. UNTIL=…210000Z gives the RFC's list (see the next example); this one stops at 12:00.
    title: 'Every 3 hours from 9:00 AM, UNTIL as written in the RFC',
    rrule: 'FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z',
    start: '1997-09-02T09:00',
    expected: times('1997-09-02', 'EDT', ['09:00', '12:00']),
  },
  {
    title: 'Every 3 hours from 9:00 AM to 5:00 PM on a specific day (UNTIL 17:00 EDT)',
    rrule: 'FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z',
    start: '1997-09-02T09:00',
    expected: times('1997-09-02', 'EDT', ['09:00', '12:00', '15:00']),
  },
  {
    title: 'Every 15 minutes for 6 occurrences',
    rrule: 'FREQ=MINUTELY;INTERVAL=15;COUNT=6',
    start: '1997-09-02T09:00',
    expected: times('1997-09-02', 'EDT', ['09:00', '09:15', '09:30', '09:45', '10:00', '10:15']),
  },
  {
    title: 'Every hour and a half for 4 occurrences',
    rrule: 'FREQ=MINUTELY;INTERVAL=90;COUNT=4',
    start: '1997-09-02T09:00',
    expected: times('1997-09-02', 'EDT', ['09:00', '10:30', '12:00', '13:30']),
  },
  ...[
    'FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40',
    'FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16',
  ].map((rrule): Example => {
    const day = range(9, 16).flatMap((hour) =>
      ['00', '20', '40'].map((minute) => `${String(hour).padStart(2, '0')}:${minute}`),
    );
    return {
      title: `Every 20 minutes from 9:00 AM to 4:40 PM every day (${rrule.slice(0, 13)})`,
      rrule,
      start: '1997-09-02T09:00',
      openEnded: true,
      expected: [...times('1997-09-02', 'EDT', day), ...times('1997-09-03', 'EDT', day)],
    };
  }),
  {
    title: 'Days generated depend on WKST (MO)',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO',
    start: '1997-08-05T09:00',
    expected: at9('EDT', '1997-08', [5, 10, 19, 24]),
  },
  {
    title: 'Days generated depend on WKST (SU)',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU',
    start: '1997-08-05T09:00',
    expected: at9('EDT', '1997-08', [5, 17, 19, 31]),
  },
  {
    title: 'An invalid date (February 30) is ignored',
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5',
    start: '2007-01-15T09:00',
    expected: [
      ...at9('EST', '2007-01', [15, 30]),
      ...at9('EST', '2007-02', [15]),
      ...at9('EDT', '2007-03', [15, 30]),
    ],
  },
];

describe.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('under process TZ=%s', (processZone) => {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = processZone;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('really runs in that process zone', () => {
    const expectedOffset = { UTC: 0, 'America/New_York': 240, 'Asia/Kolkata': -330 }[processZone];
    expect(new Date(Date.UTC(1997, 8, 2)).getTimezoneOffset()).toBe(expectedOffset);
  });

  it.each(examples)('$title', ({ rrule, start, expected, openEnded }) => {
    // Ask for more than the RFC lists, so a finite rule that runs on is caught.
    const n = openEnded ? expected.length : expected.length + 5;
    expect(expand(rrule, start, n)).toEqual(expected);
  });
});
