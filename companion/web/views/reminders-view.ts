import { parseReminderPhrase, REMINDER_OPENER } from '../../../shared/chat/reminder-phrase';
import { zoneNow } from '../../../shared/chat/zone-calendar';
import { noteDeepLink } from '../../../shared/reminders/deep-link';
import { CompanionApiError } from '../api-client';
import type { CompanionApi } from '../api-client';
import { byId, describeError, el, formatWhen, lineIcon, noticeItem } from '../dom';
import type { PageContext, PageView } from './page-context';

/*
 * Reminders: a "new reminder" box that reads natural language ("tomorrow 5pm call the bank")
 * with the same parser as chat, previewed as you type; then missed and upcoming reminders, each
 * with Done and Snooze. Every action writes the Markdown through the companion and reloads the
 * lists, so what the page shows is what the vault says.
 */

interface ReminderRow {
  id: string;
  title: string;
  path: string;
  line?: number;
  repeat?: string | null;
  /** The rule in words ("every Monday at 09:00"). */
  repeat_text?: string | null;
  next_fire?: string | null;
  /** A one-off not done whose time passed (docs/reminders.md). */
  overdue_since?: string | null;
}

interface MissedRow {
  reminder_id: string;
  title: string;
  path: string;
  line?: number;
  occurrence: string | null;
  reason: string;
  detail?: string;
}

const SNOOZES = [
  { minutes: 15, label: '15 min' },
  { minutes: 60, label: '1 hour' },
  { minutes: 24 * 60, label: 'Tomorrow' },
] as const;

/** An alarm clock with "z": snooze. */
const SNOOZE_ICON = [
  'M12 21a8 8 0 1 0 0-16 8 8 0 0 0 0 16z',
  'M10 10h4l-4 5h4',
  'M5 3 2.5 5.5',
  'M19 3l2.5 2.5',
] as const;

export function remindersView(context: PageContext): PageView {
  const form = byId<HTMLFormElement>('new-reminder');
  const input = byId<HTMLInputElement>('new-reminder-text');
  const preview = byId<HTMLParagraphElement>('new-reminder-preview');
  const add = byId<HTMLButtonElement>('new-reminder-add');
  const upcoming = byId<HTMLUListElement>('upcoming');
  const missed = byId<HTMLUListElement>('missed');
  const overdue = byId<HTMLUListElement>('overdue');
  const overdueCard = byId<HTMLElement>('overdue-card');
  const missedCard = byId<HTMLElement>('missed-card');

  function readPhrase() {
    const text = input.value.replace(REMINDER_OPENER, '').trim();
    if (text === '') return null;
    return parseReminderPhrase(text, zoneNow(Date.now(), context.zone()));
  }

  function renderPreview(): void {
    const phrase = readPhrase();
    preview.replaceChildren();
    add.disabled = phrase === null || !phrase.ok;
    if (phrase === null) {
      preview.dataset.state = 'empty';
      preview.textContent =
        'In your words, e.g. “tomorrow 5pm call the bank” or “every monday 9am standup”.';
      return;
    }
    if (!phrase.ok) {
      preview.dataset.state = 'question';
      preview.textContent = phrase.reply;
      return;
    }
    preview.dataset.state = 'ok';
    preview.append(
      el('strong', {}, phrase.title),
      el('span', {}, ` · ${describeWall(phrase.due)}${phrase.repeat ? ' · repeats' : ''}`),
    );
  }

  input.addEventListener('input', renderPreview);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void create();
  });

  async function create(): Promise<void> {
    const api = context.api();
    const phrase = readPhrase();
    if (!api || phrase === null || !phrase.ok) return;
    add.disabled = true;
    try {
      const created = await api.post<{ title: string; path: string }>('/api/v1/reminders', {
        title: phrase.title,
        due: phrase.due,
        timezone: context.zone(),
        ...(phrase.repeat ? { repeat: phrase.repeat } : {}),
      });
      input.value = '';
      renderPreview();
      context.say(`Reminder saved to ${created.path}.`);
      await load();
    } catch (error) {
      context.say(`Could not save the reminder: ${describeError(error)}`, 'error');
      add.disabled = false;
    }
  }

  /** Posts an action, says how it went (with an undo when there is one), reloads the lists. */
  async function act(
    path: string,
    body: Record<string, unknown>,
    done: { confirmation: string; failure: string; undo?: () => Promise<void> },
  ): Promise<void> {
    const api = context.api();
    if (!api) return;
    try {
      await api.post(path, body);
      const undo = done.undo;
      context.say(
        done.confirmation,
        'info',
        undo ? { label: 'Undo', run: () => void undo().then(load) } : undefined,
      );
    } catch (error) {
      context.say(`${done.failure}: ${describeError(error)}`, 'error');
    }
    await load();
  }

  /** Undoes Done on a one-off reminder: back to active (an inline task line is unchecked). */
  async function reopen(id: string, title: string): Promise<void> {
    const api = context.api();
    if (!api) return;
    try {
      await api.patch(`/api/v1/reminders/${encodeURIComponent(id)}`, { status: 'active' });
      context.say(`Back on the list: ${title}`);
    } catch (error) {
      context.say(`Could not undo: ${describeError(error)}`, 'error');
    }
  }

  /** Done (a circle, as in reminder apps) on the left; Snooze on the right; its choices below. */
  function row(options: {
    id: string;
    title: string;
    when: string;
    whenTone?: 'late' | 'soon';
    path: string;
    line?: number;
    occurrence: string | null;
    actionable: boolean;
    recurring: boolean;
    detail?: string;
  }): HTMLLIElement {
    const { id, title } = options;
    const link = el(
      'a',
      { class: 'where', href: noteDeepLink(context.vault(), options.path) },
      options.line ? `${options.path}:${options.line}` : options.path,
    );
    const body = el(
      'div',
      { class: 'row-body' },
      el('span', { class: 'title', title }, title),
      el('span', { class: `when ${options.whenTone ?? ''}`.trim() }, options.when),
      options.detail ? el('span', { class: 'detail' }, options.detail) : null,
      link,
    );
    const item = el('li', { class: 'row', 'data-id': id });
    if (!options.actionable) {
      item.append(el('span', { class: 'row-mark', 'aria-hidden': 'true' }, '!'), body);
      return item;
    }
    const base = `/api/v1/reminders/${encodeURIComponent(id)}`;
    const acted = options.occurrence ? { occurrence: options.occurrence } : {};
    const done = el(
      'button',
      { type: 'button', class: 'done', 'aria-label': `Done: ${title}`, title: 'Done' },
      el('span', { class: 'tick', 'aria-hidden': 'true' }),
    );
    done.addEventListener('click', () => {
      item.classList.add('completing');
      void act(`${base}/done`, acted, {
        confirmation: `Done: ${title}`,
        failure: 'Done failed',
        // Done on one occurrence of a series is delivery state; only a one-off reopens.
        ...(options.recurring ? {} : { undo: () => reopen(id, title) }),
      });
    });
    const snooze = el(
      'button',
      {
        type: 'button',
        class: 'snooze',
        'aria-expanded': 'false',
        'aria-label': `Snooze: ${title}`,
        title: 'Snooze',
      },
      lineIcon(SNOOZE_ICON),
    );
    const choices = el('div', { class: 'snooze-choices', hidden: '' });
    for (const choice of SNOOZES) {
      const button = el(
        'button',
        { type: 'button', class: 'chip', 'data-minutes': String(choice.minutes) },
        choice.label,
      );
      button.addEventListener(
        'click',
        () =>
          void act(
            `${base}/snooze`,
            { minutes: choice.minutes, ...acted },
            {
              confirmation: `Snoozed ${choice.label.toLowerCase()}: ${title}`,
              failure: 'Snooze failed',
            },
          ),
      );
      choices.append(button);
    }
    snooze.addEventListener('click', () => {
      const open = choices.hidden;
      choices.hidden = !open;
      snooze.setAttribute('aria-expanded', String(open));
    });
    item.append(done, body, snooze, choices);
    return item;
  }

  async function loadUpcoming(api: CompanionApi): Promise<void> {
    const body = await api.get<{ reminders: ReminderRow[] }>(
      '/api/v1/reminders?status=active&limit=100',
    );
    const now = Date.now();
    const rows = body.reminders
      .filter((reminder) => typeof reminder.next_fire === 'string')
      .sort((a, b) => Date.parse(a.next_fire ?? '') - Date.parse(b.next_fire ?? ''))
      .map((reminder) => {
        const at = Date.parse(reminder.next_fire ?? '');
        return row({
          id: reminder.id,
          title: reminder.title,
          when: `${formatWhen(reminder.next_fire ?? '')}${reminder.repeat ? ` · ${reminder.repeat_text ?? 'repeats'}` : ''}`,
          ...(at - now < 3_600_000 ? { whenTone: 'soon' as const } : {}),
          path: reminder.path,
          ...(reminder.line ? { line: reminder.line } : {}),
          occurrence: null,
          actionable: true,
          recurring: Boolean(reminder.repeat),
        });
      });
    upcoming.replaceChildren(...(rows.length > 0 ? rows : [noticeItem('Nothing coming up.')]));
    // Unticked one-offs whose time passed, whenever they were written: the oldest first.
    const late = body.reminders
      .filter((reminder) => typeof reminder.overdue_since === 'string')
      .sort((a, b) => Date.parse(a.overdue_since ?? '') - Date.parse(b.overdue_since ?? ''))
      .map((reminder) =>
        row({
          id: reminder.id,
          title: reminder.title,
          when: `Overdue · ${formatWhen(reminder.overdue_since ?? '')}`,
          whenTone: 'late',
          path: reminder.path,
          ...(reminder.line ? { line: reminder.line } : {}),
          occurrence: reminder.overdue_since ?? null,
          actionable: true,
          recurring: false,
        }),
      );
    overdue.replaceChildren(...late);
    overdueCard.hidden = late.length === 0;
  }

  /** A reminder on the Missed card (it says why) is not listed again as overdue. */
  function dropOverdueThatAreMissed(): void {
    const missedIds = new Set(
      [...missed.querySelectorAll<HTMLLIElement>('li[data-id]')].map((item) => item.dataset.id),
    );
    for (const item of [...overdue.querySelectorAll<HTMLLIElement>('li[data-id]')]) {
      if (missedIds.has(item.dataset.id)) item.remove();
    }
    overdueCard.hidden = overdue.childElementCount === 0;
  }

  async function loadMissed(api: CompanionApi): Promise<void> {
    const body = await api.get<{ missed: MissedRow[] }>('/api/v1/reminders/missed?limit=50');
    missedCard.hidden = body.missed.length === 0;
    missed.replaceChildren(
      ...body.missed.map((entry) =>
        row({
          id: entry.reminder_id,
          title: entry.title,
          when: entry.occurrence ? `Missed · ${formatWhen(entry.occurrence)}` : 'Needs attention',
          whenTone: 'late',
          path: entry.path,
          ...(entry.line ? { line: entry.line } : {}),
          occurrence: entry.occurrence,
          // An unresolved @remind has no time to act on: it is fixed in the note itself.
          actionable: entry.reason !== 'unresolved',
          // The missed list does not say; an occurrence of a series is acted on as one.
          recurring: true,
          ...(entry.detail ? { detail: entry.detail } : {}),
        }),
      ),
    );
  }

  async function load(): Promise<void> {
    const api = context.api();
    if (!api) return;
    // First load after sign-in: say so rather than show an empty card.
    if (upcoming.childElementCount === 0) upcoming.replaceChildren(noticeItem('Loading…'));
    await Promise.all([
      loadUpcoming(api).catch((error: unknown) =>
        upcoming.replaceChildren(noticeItem(loadFailure(error), 'error')),
      ),
      loadMissed(api).catch((error: unknown) => {
        missedCard.hidden = false;
        missed.replaceChildren(noticeItem(loadFailure(error), 'error'));
      }),
    ]);
    dropOverdueThatAreMissed();
  }

  renderPreview();
  return {
    show: load,
    reset() {
      upcoming.replaceChildren();
      missed.replaceChildren();
      overdue.replaceChildren();
      overdueCard.hidden = true;
      input.value = '';
      renderPreview();
    },
  };
}

function loadFailure(error: unknown): string {
  return error instanceof CompanionApiError && error.status === 404
    ? 'This companion does not schedule reminders.'
    : `Could not load: ${describeError(error)}`;
}

/** `2026-11-26T17:00` (wall time in the phone's zone) → "Thu 26 Nov, 17:00". */
function describeWall(wall: string): string {
  const [date = '', time = '00:00'] = wall.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute] = time.split(':').map(Number);
  const local = new Date(year ?? 1970, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0);
  return formatWhen(local.toISOString());
}
