/**
 * The weekly digest (docs/memory-digest-calendar.md): one Markdown note per ISO week, `Cairn/Digests/2026-W48.md`,
 * listing as [[links]] the notes created and changed that week by folder, the reminders done and
 * missed, and what is due the week after. Pure, over plain lists: the companion builds it from
 * its index and scheduler, the plugin (when not paired) from the vault, and both write the same.
 */
import { reminderOccurrences, dayStart } from '../calendar/calendar-week';
import type { CalendarReminder } from '../calendar/calendar-entries';
import { formatIsoWeek, isoWeekOfDay } from '../calendar/iso-week';
import { MEMORY_CATEGORIES, MEMORY_CATEGORY_LABELS } from '../memory/memory-category';
import type { MemoryCategory } from '../memory/memory-category';
import { MEMORY_PATH } from '../memory/memory-file';
import type { IsoWeek } from '../calendar/iso-week';
import {
  formatInZone,
  instantToWall,
  MONTH_NAMES,
  civilFromDays,
  weekdayOfDay,
} from '../reminders/local-time';

export const DEFAULT_DIGEST_FOLDER = 'Cairn/Digests';

export interface DigestNote {
  /** Vault-relative path. */
  readonly path: string;
  readonly title: string;
  /** Epoch ms the note was created (front matter `created`, else the file's birth), if known. */
  readonly created: number | null;
  /**
   * Epoch ms of the last change to its content (the companion compares hashes, so a copy or a
   * touch is none), null when none was seen.
   */
  readonly modified: number | null;
}

/** One occurrence someone marked done, and when (the companion records these). */
export interface DigestCompletion {
  readonly reminderId: string;
  readonly title: string;
  readonly path: string;
  readonly line?: number;
  readonly occurrence: number;
  readonly completedAt: number;
}

export interface DigestInput {
  readonly week: IsoWeek;
  readonly zone: string;
  readonly now: number;
  readonly notes: Iterable<DigestNote>;
  readonly reminders: Iterable<CalendarReminder>;
  /**
   * Occurrences on the companion's missed list. Absent (the plugin on its own), one-off
   * reminders whose time passed that week without being done count as missed.
   */
  readonly missed?: Iterable<{ readonly reminderId: string; readonly occurrence: number }>;
  /**
   * Completions with their time. Present (the companion), "Reminders done" lists those made
   * that week; absent (the plugin on its own), done reminders whose time fell in the week.
   */
  readonly completions?: Iterable<DigestCompletion>;
  /** Folder of the digests; notes in it are not listed. */
  readonly folder?: string;
  /**
   * Current memories (`Cairn/Memory.md`). Present, the digest has a "Memories" section: those
   * added that week, grouped by category; absent (no memory source), no such section.
   */
  readonly memories?: Iterable<DigestMemory>;
  /** The LLM's few sentences about the week's memories, shown above the groups. */
  readonly memorySummary?: string;
}

export interface DigestMemory {
  readonly id: string;
  readonly text: string;
  /** `YYYY-MM-DD`, or null for a hand-written line without one (never in a week). */
  readonly added: string | null;
  readonly category: MemoryCategory;
}

/** The memories added in `week`, by category in the fixed category order (empty ones left out). */
export function weekMemoriesByCategory(
  memories: Iterable<DigestMemory>,
  week: IsoWeek,
): Array<{ category: MemoryCategory; memories: DigestMemory[] }> {
  const first = isoDate(week.monday);
  const last = isoDate(week.monday + 6);
  const inWeek = [...memories].filter(
    (memory) => memory.added !== null && memory.added >= first && memory.added <= last,
  );
  return MEMORY_CATEGORIES.map((category) => ({
    category,
    memories: inWeek.filter((memory) => memory.category === category),
  })).filter((group) => group.memories.length > 0);
}

function isoDate(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

function memorySection(input: DigestInput): string[] {
  if (input.memories === undefined) return [];
  const groups = weekMemoriesByCategory(input.memories, input.week);
  const lines = ['## Memories'];
  if (groups.length === 0) return [...lines, '- None', ''];
  const summary = input.memorySummary?.replace(/\s+/g, ' ').trim();
  if (summary) lines.push(summary, '');
  for (const group of groups) {
    lines.push(`### ${MEMORY_CATEGORY_LABELS[group.category]}`);
    const target = MEMORY_PATH.replace(/\.md$/, '');
    for (const memory of group.memories)
      lines.push(`- ${memory.text} ([[${target}#^${memory.id}|memory]])`);
  }
  return [...lines, ''];
}

export interface Digest {
  /** `Cairn/Digests/2026-W48.md`. */
  readonly path: string;
  /** `2026-W48`. */
  readonly week: string;
  readonly text: string;
}

/** Occurrences listed per reminder under "due next week" before "and N more". */
const DUE_SHOWN_PER_REMINDER = 1;

export function digestPath(week: IsoWeek, folder = DEFAULT_DIGEST_FOLDER): string {
  return `${folder.replace(/\/+$/, '')}/${formatIsoWeek(week)}.md`;
}

export function buildDigest(input: DigestInput): Digest {
  const { week, zone } = input;
  const folder = (input.folder ?? DEFAULT_DIGEST_FOLDER).replace(/\/+$/, '');
  const from = dayStart(week.monday, zone);
  const to = dayStart(week.monday + 7, zone);
  const nextTo = dayStart(week.monday + 14, zone);
  const next = isoWeekOfDay(week.monday + 7);
  const inWeek = (instant: number | null) => instant !== null && instant >= from && instant < to;

  const created = new Map<string, DigestNote[]>();
  const changed = new Map<string, DigestNote[]>();
  for (const note of input.notes) {
    if (note.path.startsWith(`${folder}/`)) continue;
    const group = inWeek(note.created) ? created : inWeek(note.modified) ? changed : undefined;
    if (!group) continue;
    const key = folderOf(note.path);
    let list = group.get(key);
    if (!list) group.set(key, (list = []));
    list.push(note);
  }

  const reminders = [...input.reminders].filter((reminder) => reminder.status !== 'cancelled');
  const byId = new Map(reminders.map((reminder) => [reminder.id, reminder]));
  const done: Array<{
    reminder: Pick<CalendarReminder, 'id' | 'title' | 'path' | 'line'>;
    at: number;
  }> = [];
  const missed: Array<{ reminder: CalendarReminder; at: number }> = [];
  const due: Array<{ reminder: CalendarReminder; at: number; more: number }> = [];
  const missedKeys = new Set<string>();
  if (input.missed !== undefined) {
    for (const entry of input.missed) {
      const reminder = byId.get(entry.reminderId);
      if (reminder && inWeek(entry.occurrence)) {
        missed.push({ reminder, at: entry.occurrence });
        missedKeys.add(`${entry.reminderId}@${entry.occurrence}`);
      }
    }
  }
  const doneKeys = new Set<string>();
  if (input.completions !== undefined) {
    for (const completion of input.completions) {
      doneKeys.add(`${completion.reminderId}@${completion.occurrence}`);
      if (!inWeek(completion.completedAt)) continue;
      const { reminderId: id, title, path, line } = completion;
      done.push({
        reminder: { id, title, path, ...(line === undefined ? {} : { line }) },
        at: completion.completedAt,
      });
    }
  }
  for (const reminder of reminders) {
    const isDone = reminder.status === 'done' || reminder.taskChecked;
    if (isDone) {
      const last = reminderOccurrences(reminder, from, to).at(-1);
      if (input.completions === undefined && last !== undefined) done.push({ reminder, at: last });
      continue;
    }
    // A one-off still unchecked whose time passed that week was missed, whether or not it is
    // on the missed list (one passed before the companion's first start never is).
    if (reminder.schedule.kind === 'once') {
      const at = reminder.schedule.at;
      if (inWeek(at) && at < input.now && !missedKeys.has(`${reminder.id}@${at}`)) {
        missed.push({ reminder, at });
      }
    }
    // An occurrence already marked done (ahead of time) is not due.
    const upcoming = reminderOccurrences(reminder, to, nextTo).filter(
      (occurrence) => !doneKeys.has(`${reminder.id}@${occurrence}`),
    );
    if (upcoming.length > 0) {
      due.push({ reminder, at: upcoming[0]!, more: upcoming.length - DUE_SHOWN_PER_REMINDER });
    }
  }
  const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;

  const weekText = formatIsoWeek(week);
  const lines = [
    '---',
    'type: digest',
    `week: ${weekText}`,
    `created: ${formatInZone(input.now, zone)}`,
    '---',
    `# Week ${weekText}`,
    '',
    `${longDay(week.monday)} to ${longDay(week.monday + 6)} (${zone}).`,
    '',
    '## Notes created',
    ...notesByFolder(created),
    '',
    '## Notes changed',
    ...notesByFolder(changed),
    '',
    ...memorySection(input),
    '## Reminders done',
    ...listOrNone(
      done
        .sort(byTime)
        .map(({ reminder, at }) => `- [x] ${when(at, zone)} ${reminderLink(reminder)}`),
    ),
    '',
    '## Reminders missed',
    ...listOrNone(
      missed
        .sort(byTime)
        .map(({ reminder, at }) => `- ${when(at, zone)} ${reminderLink(reminder)}`),
    ),
    '',
    `## Due next week (${formatIsoWeek(next)})`,
    ...listOrNone(
      due
        .sort(byTime)
        .map(
          ({ reminder, at, more }) =>
            `- ${when(at, zone)} ${reminderLink(reminder)}${more > 0 ? ` (and ${more} more)` : ''}`,
        ),
    ),
    '',
  ];
  return { path: `${folder}/${weekText}.md`, week: weekText, text: lines.join('\n') };
}

function notesByFolder(groups: Map<string, DigestNote[]>): string[] {
  if (groups.size === 0) return ['- none'];
  const lines: string[] = [];
  for (const folder of [...groups.keys()].sort((a, b) => a.localeCompare(b))) {
    lines.push(`### ${folder === '' ? 'Vault root' : folder}`);
    const notes = groups
      .get(folder)!
      .sort((a, b) => a.title.localeCompare(b.title) || a.path.localeCompare(b.path));
    for (const note of notes) lines.push(`- ${noteLink(note.path, note.title)}`);
  }
  return lines;
}

function listOrNone(lines: string[]): string[] {
  return lines.length === 0 ? ['- none'] : lines;
}

/** `[[Folder/Note|Title]]`; the alias only when it differs from the file name. */
export function noteLink(path: string, title: string, block?: string): string {
  const target = path.replace(/\.md$/i, '') + (block === undefined ? '' : `#^${block}`);
  const name = (target.split('/').pop() ?? target).replace(/#\^.*$/, '');
  const alias = title
    .replace(/[[\]|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return alias === '' || (alias === name && block === undefined)
    ? `[[${target}]]`
    : `[[${target}|${alias}]]`;
}

function reminderLink(reminder: Pick<CalendarReminder, 'id' | 'title' | 'path' | 'line'>): string {
  const block =
    reminder.line !== undefined && /^r-[A-Za-z0-9-]+$/.test(reminder.id) ? reminder.id : undefined;
  return noteLink(reminder.path, reminder.title, block);
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** `Mon 23 Nov 17:00` in `zone`. */
function when(instant: number, zone: string): string {
  const wall = instantToWall(instant, zone);
  const day = Math.floor(wall / 86_400_000);
  const { day: date, month } = civilFromDays(day);
  const time = formatInZone(instant, zone).slice(11, 16);
  return `${WEEKDAYS[weekdayOfDay(day)]} ${date} ${MONTH_NAMES[month - 1]!.slice(0, 3)} ${time}`;
}

/** `Monday 23 November 2026`. */
function longDay(day: number): string {
  const { year, month, day: date } = civilFromDays(day);
  const weekday = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'][
    weekdayOfDay(day)
  ];
  return `${weekday} ${date} ${MONTH_NAMES[month - 1]} ${year}`;
}
