/**
 * The logic of the editor commands on one line ("Add reminder to this line", "Snooze reminder
 * under cursor", "Complete reminder under cursor"), pure over the line's text so the Obsidian
 * adapter only reads the line and writes back what comes out. Each returns the new line, or a
 * `problem` saying why nothing changed (shown as a Notice); the user's words are never lost.
 */
import { hasControlCharacters } from './control-characters';
import {
  classifyRemindText,
  describeNextFire,
  findForeignTokens,
  findRemindTokensInLine,
  formatInZone,
  normaliseRemindLine,
  resolveNaturalTime,
  taskStateOf,
} from '../../shared/reminders';

export type LineCommandResult = { ok: true; line: string } | { ok: false; problem: string };

export interface AddReminderOptions {
  now: number;
  zone: string;
  newBlockId: () => string;
  /** What a line without a token gets; default `tomorrow 09:00`. */
  defaultWhen?: string;
}

/** Normalises the line's token, or appends `@remind(<tomorrow 09:00, absolute>)` and a block id. */
export function addReminderToLine(line: string, options: AddReminderOptions): LineCommandResult {
  if (hasControlCharacters(line)) {
    return { ok: false, problem: 'the line holds control characters; remove them first' };
  }
  let working = line;
  if (findRemindTokensInLine(line).length === 0) {
    const when = resolveNaturalTime(options.defaultWhen ?? 'tomorrow 09:00', {
      now: options.now,
      zone: options.zone,
    });
    if (!when.ok) return { ok: false, problem: when.message };
    const { blockStart, blockText } = splitBlockId(line);
    const content = line.slice(0, blockStart).trimEnd();
    working = `${content}${content === '' ? '' : ' '}@remind(${when.text})${blockText}`;
  }
  const normalised = normaliseRemindLine(working, {
    now: options.now,
    zone: options.zone,
    newBlockId: options.newBlockId,
  });
  if (normalised.problem !== undefined) return { ok: false, problem: normalised.problem };
  return { ok: true, line: normalised.line };
}

/** True when "Add reminder to this line" must ask for a time: the line has no `@remind` yet. */
export function lineNeedsTime(line: string): boolean {
  return findRemindTokensInLine(line).length === 0;
}

export type ReminderTimeCheck =
  | { ok: true; /** When it fires, e.g. `tomorrow 09:00`. */ label: string }
  | { ok: false; problem: string };

/** Reads the time typed for "Add reminder to this line": when it fires, or why it cannot. */
export function checkReminderTime(
  when: string,
  options: { now: number; zone: string },
): ReminderTimeCheck {
  if (when.trim() === '') return { ok: false, problem: 'type when to be reminded' };
  const resolved = resolveNaturalTime(when, options);
  if (!resolved.ok) return { ok: false, problem: resolved.message };
  return { ok: true, label: describeNextFire(resolved.instant, options.zone, options.now) };
}

/** Moves a one-off `@remind` on the line to `until`, written in the token's zone. */
export function snoozeLine(line: string, until: number, vaultZone: string): LineCommandResult {
  const [token] = findRemindTokensInLine(line);
  if (token === undefined) {
    // Cairn reads the Reminder plugin's formats but never rewrites them: that plugin snoozes
    // its own reminders (its time syntax has no snooze of its own to keep).
    if (foreignSyntaxOf(line) !== undefined) {
      return {
        ok: false,
        problem:
          "this reminder is written in the Reminder plugin's format, which Cairn only reads; snooze it with that plugin",
      };
    }
    return { ok: false, problem: 'this line has no @remind(...)' };
  }
  if (!token.closed) return { ok: false, problem: 'the @remind( on this line is not closed' };
  if (taskStateOf(line) === 'checked') return { ok: false, problem: 'this task is already done' };
  const value = classifyRemindText(token.inner, vaultZone);
  if (value.kind === 'invalid') return { ok: false, problem: value.reason };
  if (value.kind === 'recurring') {
    return {
      ok: false,
      problem:
        'a recurring reminder cannot be snoozed in the note (its rule stays); snooze one occurrence from the notification',
    };
  }
  const zone = value.kind === 'once' ? value.zone : vaultZone;
  const wall = formatInZone(until, zone).slice(0, 16).replace('T', ' ');
  const zoneSuffix = zone === vaultZone ? '' : ` ${zone}`;
  const inner = `${wall}${zoneSuffix}`;
  return { ok: true, line: line.slice(0, token.innerFrom) + inner + line.slice(token.innerTo) };
}

const OPEN_TASK = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[)([^\]xX-])(\])/;
/** The Tasks plugin's recurrence (`🔁 every week`) and date signifiers (due, scheduled, start). */
const TASKS_RECURRENCE = '🔁';
const TASKS_DATE = /(?:📅|⏳|🛫|⏰)\uFE0F? ?\d{4}-\d{2}-\d{2}/u;
const TASKS_DONE = /✅\uFE0F? ?\d{4}-\d{2}-\d{2}/u;

export interface CompleteLineOptions {
  /** Today in the vault's zone, `YYYY-MM-DD`: the Tasks plugin's done date (`✅ 2026-11-23`). */
  today?: string;
}

/**
 * Checks the task box of a task line carrying a reminder. A line in the Tasks plugin's emoji
 * format gets that plugin's done date (`✅ YYYY-MM-DD`, before a block id), as Tasks writes it;
 * a recurring Tasks line (`🔁`) is refused: only Tasks writes its next occurrence, and a plain
 * check would end the series.
 */
export function completeLine(line: string, options: CompleteLineOptions = {}): LineCommandResult {
  if (taskStateOf(line) === 'checked') return { ok: false, problem: 'this task is already done' };
  const match = OPEN_TASK.exec(line);
  if (match === null) {
    return {
      ok: false,
      problem: 'not a task line: make it "- [ ] …" to complete it, or delete the @remind',
    };
  }
  const tasksFormat = TASKS_DATE.test(line) || line.includes(TASKS_RECURRENCE);
  if (line.includes(TASKS_RECURRENCE)) {
    return {
      ok: false,
      problem:
        'a recurring task of the Tasks plugin (🔁): complete it with Tasks, which writes its next occurrence',
    };
  }
  let checked = `${match[1]}x${match[3]}${line.slice(match[0].length)}`;
  if (tasksFormat && options.today !== undefined && !TASKS_DONE.test(checked)) {
    const { blockStart, blockText } = splitBlockId(checked);
    checked = `${checked.slice(0, blockStart).trimEnd()} ✅ ${options.today}${blockText}`;
  }
  return { ok: true, line: checked };
}

/** The other plugin whose reminder format the line holds, when it holds no `@remind`. */
export function foreignSyntaxOf(line: string): 'reminder-plugin' | 'tasks' | undefined {
  if (findRemindTokensInLine(line).length > 0) return undefined;
  const [token] = findForeignTokens(
    line,
    { reminderPlugin: true, tasks: true },
    { hour: 9, minute: 0 },
  );
  return token?.syntax;
}

export interface SnoozeChoice {
  label: string;
  until: number;
}

/** 15 minutes, 1 hour, tomorrow 09:00 (in the vault's zone). */
export function snoozeChoices(now: number, zone: string): SnoozeChoice[] {
  const choices: SnoozeChoice[] = [
    { label: '15 minutes', until: now + 15 * 60_000 },
    { label: '1 hour', until: now + 60 * 60_000 },
  ];
  const tomorrow = resolveNaturalTime('tomorrow 09:00', { now, zone });
  if (tomorrow.ok) choices.push({ label: 'Tomorrow 09:00', until: tomorrow.instant });
  return choices;
}

function splitBlockId(line: string): { blockStart: number; blockText: string } {
  const match = /\s\^[A-Za-z0-9-]+\s*$/.exec(line);
  if (match === null) return { blockStart: line.length, blockText: '' };
  return { blockStart: match.index, blockText: ` ${match[0].trim()}` };
}
