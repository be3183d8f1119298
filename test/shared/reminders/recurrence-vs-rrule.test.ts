// Differential check: on rules where the `rrule` package is trustworthy (floating time, no
// DST, no sub-daily BYHOUR/BYMINUTE lattices it mishandles), our expander must give the same
// occurrences. Rules are drawn from a seeded generator so a failure replays exactly.
import rrulePkg from 'rrule';
import { describe, expect, it } from 'vitest';
import { nextOccurrences, validateRrule } from '../../../shared/reminders/recurrence';

const { RRule } = rrulePkg;

const COMPARED = 25;
const RULES = 300;

/** mulberry32: small, seedable, good enough to spread test cases. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

function draw(next: () => number): { rrule: string; start: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const some = (count: number, make: () => string): string =>
    [...new Set(Array.from({ length: 1 + Math.floor(next() * count) }, make))].join(',');
  const freq = pick(['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY'] as const);
  const parts = [`FREQ=${freq}`];
  const subDaily = freq === 'HOURLY' || freq === 'MINUTELY';
  if (next() < 0.5) parts.push(`INTERVAL=${1 + Math.floor(next() * 4)}`);
  if (next() < 0.3) parts.push(`BYMONTH=${some(3, () => String(1 + Math.floor(next() * 12)))}`);
  if (freq !== 'WEEKLY' && next() < 0.3) {
    parts.push(
      `BYMONTHDAY=${some(3, () => String(pick([1, 2, 10, 15, 28, 29, 30, 31, -1, -2, -7])))}`,
    );
  }
  const ordinals = freq === 'MONTHLY' || freq === 'YEARLY';
  let hasByDay = false;
  if (next() < 0.4) {
    hasByDay = true;
    // rrule returns nothing for lists that mix plain and ordinal weekdays (`-2FR,MO`), so a
    // list is all plain or all ordinal here.
    const withOrdinals = ordinals && next() < 0.4;
    const ordinal = () => (withOrdinals ? String(pick([1, 2, 3, -1, -2])) : '');
    parts.push(`BYDAY=${some(3, () => ordinal() + pick(WEEKDAYS))}`);
  }
  if (freq === 'YEARLY' && next() < 0.15)
    parts.push(`BYYEARDAY=${some(2, () => String(pick([1, 60, 100, 200, 365, -1, -100])))}`);
  if (freq === 'YEARLY' && !parts.some((p) => /\d[A-Z]{2}/.test(p)) && next() < 0.15) {
    parts.push(`BYWEEKNO=${some(2, () => String(pick([1, 2, 20, 52, 53, -1])))}`);
  }
  if (!subDaily && next() < 0.3)
    parts.push(`BYHOUR=${some(2, () => String(Math.floor(next() * 24)))}`);
  if (!subDaily && next() < 0.3)
    parts.push(`BYMINUTE=${some(2, () => String(pick([0, 15, 30, 45])))}`);
  // A sub-daily set holds one instant, so BYSETPOS=2 there matches nothing, and rrule then
  // walks minute by minute through the whole window: left to the RFC 5545 table instead.
  if (hasByDay && !subDaily && freq !== 'WEEKLY' && next() < 0.3)
    parts.push(`BYSETPOS=${pick([1, 2, -1])}`);
  if (next() < 0.2) parts.push(`WKST=${pick(WEEKDAYS)}`);
  const year = 2020 + Math.floor(next() * 10);
  const month = 1 + Math.floor(next() * 12);
  const day = 1 + Math.floor(next() * 28);
  const pad = (n: number) => String(n).padStart(2, '0');
  const start = `${year}-${pad(month)}-${pad(day)}T${pad(Math.floor(next() * 24))}:${pad(pick([0, 15, 30, 45]))}`;
  return { rrule: parts.join(';'), start };
}

/**
 * rrule's `all()` never ends on a rule with no occurrence (BYMONTH=2;BYMONTHDAY=30), so both
 * sides are compared inside the same window.
 */
const WINDOW_YEARS = 40;

function windowEnd(start: string): number {
  const startInstant = Date.parse(`${start}:00Z`);
  return startInstant + WINDOW_YEARS * 365.25 * 24 * 3_600_000;
}

function byRrulePackage(rule: { rrule: string; start: string }): number[] {
  const dtstart = new Date(`${rule.start}:00Z`);
  const options = { ...RRule.parseString(rule.rrule), dtstart };
  const found: number[] = [];
  new RRule(options, true).between(dtstart, new Date(windowEnd(rule.start)), false, (date) => {
    found.push(date.getTime());
    return found.length < COMPARED * 4;
  });
  // rrule yields a period's BYHOUR/BYMINUTE values in list order (BYHOUR=23,2 gives 23:00 before
  // 02:00), not in time order; collecting a few periods more and sorting recovers the first ones.
  return found.sort((a, b) => a - b).slice(0, COMPARED);
}

function ours(rule: { rrule: string; start: string }): number[] {
  const startInstant = Date.parse(`${rule.start}:00Z`);
  // Floating time in UTC; the start always comes first in ours, so ask from just after it.
  return nextOccurrences(rule, startInstant, 'UTC', COMPARED).filter(
    (instant) => instant < windowEnd(rule.start),
  );
}

describe('agreement with the rrule package on floating-time rules', () => {
  const next = random(20261122);
  const rules = Array.from({ length: RULES }, () => draw(next)).filter(
    (rule) => validateRrule(rule.rrule).ok,
  );

  it('draws enough valid rules to mean something', () => {
    expect(rules.length).toBeGreaterThan(RULES * 0.8);
  });

  it.each(rules)('$rrule from $start', (rule) => {
    expect(ours(rule).map((t) => new Date(t).toISOString())).toEqual(
      byRrulePackage(rule).map((t) => new Date(t).toISOString()),
    );
  });
});
