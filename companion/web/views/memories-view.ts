import type {
  MemoryCategoryCounts,
  MemoryItem,
  MemoryLinkClipped,
  MemoryLinkStatus,
  MemoryLinksResponse,
  MemoryListResponse,
  MemoryReminderCreated,
} from '../../../shared/protocol/memories';
import { noteDeepLink } from '../../../shared/reminders/deep-link';
import { byId, describeError, el, formatWhen, noticeItem } from '../dom';
import type { PageContext, PageView } from './page-context';

/*
 * Memories (docs/memory-digest-calendar.md): `Cairn/Memory.md`'s facts, newest first, filtered
 * by category with chips counted by `GET /api/v1/memories/categories` (`?category=` on the
 * list). A fact with a link shows its clipped note, or why it is not clipped, with Retry
 * (`POST /api/v1/memories/:id/link`). "Remind me" turns a fact into a reminder whose note
 * links back to it (`POST /api/v1/memories/:id/reminder`).
 */

type Category = MemoryCategoryCounts['categories'][number];

export function memoriesView(context: PageContext): PageView {
  const chips = byId<HTMLDivElement>('memory-categories');
  const list = byId<HTMLUListElement>('memories');

  let selected: Category['category'] | null = null;
  let categories: Category[] = [];

  async function load(): Promise<void> {
    const api = context.api();
    if (!api) return;
    const query = selected === null ? '' : `?category=${encodeURIComponent(selected)}`;
    try {
      const [counts, listed, links] = await Promise.all([
        api.get<MemoryCategoryCounts>('/api/v1/memories/categories'),
        api.get<MemoryListResponse>(`/api/v1/memories${query}`),
        api
          .get<MemoryLinksResponse>('/api/v1/memories/links')
          .catch(() => ({ links: [] }) as MemoryLinksResponse),
      ]);
      categories = counts.categories;
      renderChips();
      const byMemory = new Map(links.links.map((link) => [link.memory, link]));
      const newest = [...listed.memories].sort(
        (a, b) => (b.added ?? '').localeCompare(a.added ?? '') || b.line - a.line,
      );
      list.replaceChildren(
        ...(newest.length > 0
          ? newest.map((memory) => row(memory, byMemory.get(memory.id)))
          : [
              noticeItem(
                selected === null
                  ? 'No memories yet. Say “remember that …” in Chat.'
                  : `Nothing under ${labelOf(selected)}.`,
              ),
            ]),
      );
    } catch (error) {
      list.replaceChildren(noticeItem(`Could not load memories: ${describeError(error)}`, 'error'));
    }
  }

  function labelOf(category: Category['category']): string {
    return categories.find((entry) => entry.category === category)?.label ?? category;
  }

  function renderChips(): void {
    const total = categories.reduce((sum, entry) => sum + entry.count, 0);
    const shown = categories.filter((entry) => entry.count > 0 || entry.category === selected);
    chips.replaceChildren(
      chip('All', total, null),
      ...shown.map((entry) => chip(entry.label, entry.count, entry.category)),
    );
  }

  function chip(label: string, count: number, category: Category['category'] | null) {
    const button = el(
      'button',
      {
        type: 'button',
        class: 'memory-chip',
        'aria-pressed': String(selected === category),
        'data-category': category ?? 'all',
      },
      label,
      el('span', { class: 'memory-chip-count' }, String(count)),
    );
    button.addEventListener('click', () => {
      selected = category;
      void load();
    });
    return button;
  }

  function row(memory: MemoryItem, link: MemoryLinkStatus | undefined): HTMLLIElement {
    const item = el(
      'li',
      { class: 'memory-row', 'data-memory': memory.id },
      el('span', { class: 'memory-text' }, memory.text),
      el(
        'span',
        { class: 'memory-meta' },
        [labelOf(memory.category), memory.added === null ? null : `added ${memory.added}`]
          .filter((part) => part !== null)
          .join(' · '),
      ),
    );
    const actions = el('div', { class: 'memory-actions' });
    if (link !== undefined) {
      item.append(linkLine(link));
      if (link.retry && link.status !== 'clipped' && link.status !== 'fetching') {
        const retry = el('button', { type: 'button', class: 'ghost small-button' }, 'Retry');
        retry.addEventListener('click', () => void clip(memory, retry));
        actions.append(retry);
      }
    }
    const remind = el(
      'button',
      { type: 'button', class: 'link-button memory-remind' },
      'Remind me',
    );
    remind.addEventListener('click', () => {
      actions.hidden = true;
      item.append(reminderForm(memory, () => (actions.hidden = false)));
    });
    actions.append(remind);
    item.append(actions);
    return item;
  }

  function linkLine(link: MemoryLinkStatus): HTMLElement {
    const line = el('p', { class: 'memory-link', 'data-status': link.status });
    if (link.status === 'clipped' && link.note !== undefined) {
      const vault = context.vault();
      const title =
        vault === ''
          ? el('span', { class: 'memory-link-title' }, link.note.title)
          : el(
              'a',
              { href: noteDeepLink(vault, link.note.path), class: 'memory-link-title' },
              link.note.title,
            );
      line.append(el('span', { class: 'memory-link-label' }, 'Clipped'), ' ', title);
      return line;
    }
    const label =
      link.status === 'fetching'
        ? 'Fetching…'
        : link.status === 'failed'
          ? 'Not clipped'
          : 'Not fetched';
    line.append(
      el('span', { class: 'memory-link-label' }, label),
      ' ',
      el('span', { class: 'memory-link-why' }, link.message),
    );
    return line;
  }

  async function clip(memory: MemoryItem, button: HTMLButtonElement): Promise<void> {
    const api = context.api();
    if (!api) return;
    button.disabled = true;
    button.textContent = 'Fetching…';
    try {
      const clipped = await api.post<MemoryLinkClipped>(
        `/api/v1/memories/${encodeURIComponent(memory.id)}/link`,
      );
      context.say(`Clipped “${clipped.title}” into ${clipped.path}.`);
    } catch (error) {
      context.say(`Could not clip the link: ${describeError(error)}`, 'error');
    }
    await load();
  }

  function reminderForm(memory: MemoryItem, closed: () => void): HTMLFormElement {
    const id = `memory-due-${memory.id}`;
    const due = el('input', { id, type: 'datetime-local', required: '' });
    due.value = tomorrowMorning();
    const cancel = el('button', { type: 'button', class: 'ghost' }, 'Cancel');
    const form = el(
      'form',
      { class: 'memory-reminder' },
      el('label', { for: id }, 'Remind me on'),
      due,
      el(
        'div',
        { class: 'button-row' },
        el('button', { type: 'submit', class: 'primary' }, 'Set reminder'),
        cancel,
      ),
    );
    cancel.addEventListener('click', () => {
      form.remove();
      closed();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void remind(memory, due.value, form, closed);
    });
    return form;
  }

  async function remind(
    memory: MemoryItem,
    due: string,
    form: HTMLFormElement,
    closed: () => void,
  ): Promise<void> {
    const api = context.api();
    if (!api || due === '') return;
    try {
      const made = await api.post<MemoryReminderCreated>(
        `/api/v1/memories/${encodeURIComponent(memory.id)}/reminder`,
        { due, timezone: context.zone() },
      );
      form.remove();
      closed();
      const when = made.reminder.due === null ? '' : ` for ${formatWhen(made.reminder.due)}`;
      context.say(
        made.deduplicated
          ? `That reminder was already set: ${made.reminder.title}.`
          : `Reminder set${when}: ${made.reminder.title}. It links this memory.`,
      );
    } catch (error) {
      context.say(`Could not set the reminder: ${describeError(error)}`, 'error');
    }
  }

  return {
    show: load,
    reset() {
      selected = null;
      categories = [];
      chips.replaceChildren();
      list.replaceChildren();
    },
  };
}

/** Tomorrow 09:00 on this phone, as a `datetime-local` value. */
function tomorrowMorning(now: Date = new Date()): string {
  const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 9, 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}T09:00`;
}
