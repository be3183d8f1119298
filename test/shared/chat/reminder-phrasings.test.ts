import { describe, expect, it } from 'vitest';
import { MONTH_WORDS_BY_LANGUAGE } from '../../../shared/chat/date-words';
import { routeMessage } from '../../../shared/chat/intent-router';

/*
 * Chat times as people type them (issue #26 item 5), table-driven: day-first dates, ISO
 * dates, month names in English, German, French, Spanish and Italian, times that have passed
 * today, and impossible dates. Said on Friday 27 November 2026 at 10:30 in Berlin, so "at 9"
 * has passed. Every row is routed as the chat routes it; each language's pass rate is printed.
 */

const NOW = Date.parse('2026-11-27T10:30:00+01:00');
const ZONE = 'Europe/Berlin';
const TITLE = 'Water the tree';

type Expect = { due: string } | { question: RegExp; never: string };
type Row = { group: string; message: string; expect: Expect };

const pad = (value: number) => String(value).padStart(2, '0');
/** The next (month, day) at 09:00 from NOW: this year's if still to come, else next year's. */
function nextAt9(month: number, day: number): string {
  const later = month > 11 || (month === 11 && day > 27);
  return `${later ? 2026 : 2027}-${pad(month)}-${pad(day)}T09:00`;
}

const rows: Row[] = [];
const add = (group: string, message: string, expect: Expect) =>
  rows.push({ group, message, expect });

// Month names: every month, the full name and each abbreviation, in each language's own order.
const FORMS: Record<string, (day: number, word: string) => string[]> = {
  en: (day, word) => [`on ${day} ${word}`, `on ${word} ${day}`, `on the ${day}th of ${word}`],
  de: (day, word) => [`am ${day}. ${word}`],
  fr: (day, word) => [`le ${day === 1 ? '1er' : day} ${word}`],
  es: (day, word) => [`el ${day} de ${word}`],
  it: (day, word) => [`il ${day} ${word}`],
};
for (const [language, months] of Object.entries(MONTH_WORDS_BY_LANGUAGE)) {
  months.forEach((words, index) => {
    const month = index + 1;
    const day = ((month * 5) % 28) + 1;
    for (const word of words.split(' ')) {
      for (const said of FORMS[language]!(day, word)) {
        const capitalised = word.charAt(0).toUpperCase() + word.slice(1);
        add(language, `remind me ${said.replace(word, capitalised)} at 9 to water the tree`, {
          due: nextAt9(month, day),
        });
      }
    }
  });
  // With a year, and the time first.
  add(
    language,
    `remind me at 9 ${FORMS[language]!(3, months[0]!.split(' ')[0]!)[0]!} 2027 to water the tree`,
    {
      due: '2027-01-03T09:00',
    },
  );
}

// Day-first numbers and ISO dates.
for (const [month, day] of [
  [12, 24],
  [1, 5],
  [3, 1],
  [6, 30],
  [11, 28],
  [11, 26],
  [2, 28],
  [10, 9],
] as const) {
  const due = nextAt9(month, day);
  const year = Number(due.slice(0, 4));
  for (const said of [
    `on ${day}.${month}.`,
    `on ${pad(day)}.${pad(month)}.`,
    `on ${day}.${month}.${year}`,
    `on ${day}.${month}.${String(year).slice(2)}`,
    `on ${day}/${month}`,
    `on ${pad(day)}/${pad(month)}/${year}`,
    `on ${year}-${pad(month)}-${pad(day)}`,
  ]) {
    add('numeric', `remind me ${said} at 9 to water the tree`, { due });
  }
  add('numeric', `remind me to water the tree on ${day}.${month}. at 9`, { due });
  add('numeric', `remind me on ${year}-${pad(month)}-${pad(day)}T09:00 to water the tree`, { due });
}

// Times of day alone: the next such time, today or tomorrow; never silently the evening.
for (const [said, due] of [
  ['at 9', '2026-11-28T09:00'],
  ['at 9:00', '2026-11-28T09:00'],
  ['at 10:15', '2026-11-28T10:15'],
  ['at 10:45', '2026-11-27T10:45'],
  ['at 11', '2026-11-27T11:00'],
  ['at 5', '2026-11-28T05:00'],
  ['at 8am', '2026-11-28T08:00'],
  ['at 9pm', '2026-11-27T21:00'],
  ['at 21:00', '2026-11-27T21:00'],
  ['at 6:30 am', '2026-11-28T06:30'],
  ['at noon', '2026-11-27T12:00'],
  ['at 7', '2026-11-28T07:00'],
] as const) {
  add('time', `remind me ${said} to water the tree`, { due });
  add('time', `remind me to water the tree ${said}`, { due });
}

// Impossible dates: a question, nothing created, the date not repeated.
for (const said of [
  '2026-02-30',
  '30.02.',
  '31.04.2027',
  '31/06',
  '12/24',
  '31 April',
  'February 30',
  '30. Februar',
  '31 septembre',
  '31 de junio',
  '30 febbraio',
  '2027-13-01',
  '32.01.',
  '29.02.2027',
]) {
  add('impossible', `remind me on ${said} at 9 to water the tree`, {
    question:
      /^That date does not exist: .+\. On which day should I remind you to water the tree\?$/,
    never: said.replace(/^0/, ''),
  });
}

function check(row: Row): string | undefined {
  const routed = routeMessage(row.message, { now: NOW, zone: ZONE });
  if ('due' in row.expect) {
    if (routed.kind !== 'tool' || routed.call.name !== 'create_reminder') {
      return `${row.message}: ${JSON.stringify(routed)}`;
    }
    const args = routed.call.args as { title: string; due: string };
    if (args.due !== row.expect.due || args.title !== TITLE) {
      return `${row.message}: got ${args.due} "${args.title}", wanted ${row.expect.due}`;
    }
    return undefined;
  }
  if (routed.kind !== 'reply') return `${row.message}: ${JSON.stringify(routed)}`;
  if (!row.expect.question.test(routed.text) || routed.text.includes(row.expect.never)) {
    return `${row.message}: ${routed.text}`;
  }
  return undefined;
}

describe('chat reminder phrasings', () => {
  it('has at least 200 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(200);
  });

  const groups = [...new Set(rows.map((row) => row.group))];
  it.each(groups)('%s: every phrasing reads as meant', (group) => {
    const mine = rows.filter((row) => row.group === group);
    const failures = mine.map(check).filter((failure) => failure !== undefined);
    const passed = mine.length - failures.length;
    // The closing note quotes these: pass rate per language.
    console.log(`phrasings ${group}: ${passed}/${mine.length}`);
    expect(failures).toEqual([]);
  });
});
