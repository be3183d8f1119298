/**
 * The logic of the editor commands on one line ("Add reminder to this line", "Snooze reminder
 * under cursor", "Complete reminder under cursor"), pure over the line's text so the Obsidian
 * adapter only reads the line and writes back what comes out. Each returns the new line, or a
 * `problem` saying why nothing changed (shown as a Notice); the user's words are never lost.
 */
import { hasControlCharacters } from './control-characters';
import {
  classifyRemindText,
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

/** Moves a one-off `@remind` on the line to `until`, written in the token's zone. */
export function snoozeLine(line: string, until: number, vaultZone: string): LineCommandResult {
  const [token] = findRemindTokensInLine(line);
  if (token === undefined) return { ok: false, problem: 'this line has no @remind(...)' };
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

/** Checks the task box of a task line carrying a reminder. */
export function completeLine(line: string): LineCommandResult {
  if (taskStateOf(line) === 'checked') return { ok: false, problem: 'this task is already done' };
  const match = OPEN_TASK.exec(line);
  if (match === null) {
    return {
      ok: false,
      problem: 'not a task line: make it "- [ ] …" to complete it, or delete the @remind',
    };
  }
  return { ok: true, line: `${match[1]}x${match[3]}${line.slice(match[0].length)}` };
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
