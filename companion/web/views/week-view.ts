import { noteDeepLink } from '../../../shared/reminders/deep-link';
import { isRecord } from '../../../shared/protocol/json';
import { CompanionApiError } from '../api-client';
import { byId, describeError, el, formatTime } from '../dom';
import { isoWeekOfDate, mondayOfIsoWeek, shiftIsoWeek } from '../../../shared/calendar/iso-week';
import { todayIn } from '../today';
import type { PageContext, PageView } from './page-context';

/*
 * Week: reminders and calendar events of one ISO week, day by day, from
 * `GET /api/v1/calendar/week?week=2026-W48`, with previous/next and today highlighted. A
 * companion that predates the route answers 404, which the view says plainly.
 */

interface WeekItem {
  kind: string;
  id: string;
  title: string;
  start: string;
  end: string | null;
  all_day: boolean;
  path: string;
  line: number | null;
  status: string | null;
  recurring: boolean;
}

interface WeekDay {
  date: string;
  items: WeekItem[];
}

export function weekView(context: PageContext): PageView {
  const label = byId<HTMLHeadingElement>('week-label');
  const days = byId<HTMLOListElement>('week-days');
  const previous = byId<HTMLButtonElement>('week-previous');
  const next = byId<HTMLButtonElement>('week-next');
  const thisWeek = byId<HTMLButtonElement>('week-today');
  const number = byId<HTMLSpanElement>('week-number');
  let week = isoWeekOfDate(todayIn(Date.now()));

  previous.addEventListener('click', () => void go(shiftIsoWeek(week, -1)));
  next.addEventListener('click', () => void go(shiftIsoWeek(week, 1)));
  thisWeek.addEventListener('click', () => void go(isoWeekOfDate(todayIn(Date.now()))));

  async function go(target: string): Promise<void> {
    week = target;
    await load();
  }

  async function load(): Promise<void> {
    const api = context.api();
    if (!api) return;
    const today = todayIn(Date.now());
    label.textContent = weekRange(week);
    number.textContent = `Week ${Number(week.slice(6))}`;
    thisWeek.hidden = week === isoWeekOfDate(today);
    days.setAttribute('aria-busy', 'true');
    try {
      const body = await api.get<unknown>(`/api/v1/calendar/week?week=${encodeURIComponent(week)}`);
      const parsed = readDays(body);
      days.replaceChildren(...parsed.map((day) => dayBlock(day, today)));
    } catch (error) {
      const text =
        error instanceof CompanionApiError && error.status === 404
          ? 'This companion does not serve the week yet.'
          : `Could not load the week: ${describeError(error)}`;
      days.replaceChildren(el('li', { class: 'notice muted' }, text));
    } finally {
      days.removeAttribute('aria-busy');
    }
  }

  function dayBlock(day: WeekDay, today: string): HTMLLIElement {
    const isToday = day.date === today;
    const heading = el(
      'h3',
      { class: 'day-name' },
      el(
        'span',
        { class: 'day-date' },
        new Intl.DateTimeFormat(undefined, {
          weekday: 'long',
          day: 'numeric',
          month: 'short',
          timeZone: 'UTC',
        }).format(Date.parse(`${day.date}T00:00:00Z`)),
      ),
      isToday ? el('span', { class: 'today-badge' }, 'Today') : null,
    );
    const empty = day.items.length === 0;
    if (empty) heading.append(el('span', { class: 'free' }, 'Nothing planned'));
    const items = el('ul', { class: 'day-items' });
    // All-day first, then by start time.
    const sorted = [...day.items].sort(
      (a, b) => Number(b.all_day) - Number(a.all_day) || Date.parse(a.start) - Date.parse(b.start),
    );
    for (const item of sorted) items.append(itemRow(item));
    return el(
      'li',
      {
        class: `day${isToday ? ' today' : ''}${empty ? ' empty-day' : ''}`,
        'data-date': day.date,
        ...(isToday ? { 'aria-current': 'date' } : {}),
      },
      heading,
      empty ? null : items,
    );
  }

  function itemRow(item: WeekItem): HTMLLIElement {
    const time = item.all_day
      ? 'All day'
      : item.end
        ? `${formatTime(item.start)}–${formatTime(item.end)}`
        : formatTime(item.start);
    const title = el(
      'a',
      { class: 'title', href: noteDeepLink(context.vault(), item.path) },
      item.title,
    );
    return el(
      'li',
      { class: `week-item ${item.kind}${item.status ? ` ${item.status}` : ''}` },
      el('span', { class: 'time' }, time),
      el(
        'span',
        { class: 'what' },
        title,
        el(
          'span',
          { class: 'meta' },
          [
            item.kind === 'event' ? 'Event' : 'Reminder',
            item.recurring ? 'repeats' : '',
            item.status === 'done' ? 'done' : item.status === 'missed' ? 'missed' : '',
          ]
            .filter((part) => part !== '')
            .join(' · '),
        ),
      ),
    );
  }

  return {
    show: load,
    reset() {
      days.replaceChildren();
    },
  };
}

/** "Nov 23 – 29", "Nov 30 – Dec 6" in the phone's locale. */
function weekRange(week: string): string {
  const monday = Date.parse(`${mondayOfIsoWeek(week)}T00:00:00Z`);
  return new Intl.DateTimeFormat(undefined, {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).formatRange(monday, monday + 6 * 86_400_000);
}

function readDays(body: unknown): WeekDay[] {
  if (!isRecord(body) || !Array.isArray(body.days)) {
    throw new Error('the companion answered without a list of days');
  }
  return body.days.filter(isRecord).map((day) => ({
    date: typeof day.date === 'string' ? day.date : '',
    items: (Array.isArray(day.items) ? day.items : []).filter(isRecord).map((item) => ({
      kind: item.kind === 'event' ? 'event' : 'reminder',
      id: String(item.id ?? ''),
      title: typeof item.title === 'string' ? item.title : '',
      start: typeof item.start === 'string' ? item.start : '',
      end: typeof item.end === 'string' ? item.end : null,
      all_day: item.all_day === true,
      path: typeof item.path === 'string' ? item.path : '',
      line: typeof item.line === 'number' ? item.line : null,
      status: typeof item.status === 'string' ? item.status : null,
      recurring: item.recurring === true,
    })),
  }));
}
