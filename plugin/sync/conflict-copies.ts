/**
 * Conflict copies as the sync views see them (docs/sync.md "Conflict copies"): the companion
 * writes the device's version beside the note as `Note.conflict-YYYYMMDD-HHMMSS(-N).ext` (UTC),
 * and a Markdown copy names its device in front matter (`conflict_device`). Pure: the view reads
 * the files and hands their paths and text here.
 */

/** The name the companion's writes and sync give copies (companion/vault/conflict-copies.ts). */
const COPY_NAME =
  /^(.*)\.conflict-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-\d+)?(\.[^./]+)?$/;

export interface ConflictCopy {
  readonly copyPath: string;
  /** The note the copy is of (at the same folder, without the `.conflict-…` part). */
  readonly originalPath: string;
  /** When the copy was made (ms since the epoch, from its name). */
  readonly time: number;
  /** The device whose version the copy holds; null when the copy does not say (not Markdown). */
  readonly device: string | null;
}

/** The copy's facts, or null when `path` is not a Cairn conflict copy. */
export function conflictCopy(path: string, text?: string): ConflictCopy | null {
  const match = COPY_NAME.exec(path);
  if (match === null) return null;
  const [, stem, year, month, day, hour, minute, second, extension] = match;
  const time = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  if (Number.isNaN(time)) return null;
  return {
    copyPath: path,
    originalPath: `${stem ?? ''}${extension ?? ''}`,
    time,
    device: text === undefined ? null : conflictDevice(text),
  };
}

/** `conflict_device:` from a note's front matter. */
export function conflictDevice(text: string): string | null {
  const front = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (front === null) return null;
  const line = /^conflict_device:[ \t]*(.*)$/m.exec(front[1] ?? '');
  if (line === null) return null;
  const value = (line[1] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2');
  return value === '' ? null : value;
}

/**
 * The copy's text without the two keys the companion added (`conflict_of`, `conflict_device`),
 * so "keep that" puts the device's words back exactly as they were written. The front matter
 * fence goes too when those were its only keys.
 */
export function withoutConflictKeys(text: string): string {
  const front = /^---(\r?\n)([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
  if (front === null) return text;
  const newline = front[1] ?? '\n';
  const kept = (front[2] ?? '')
    .split(/\r?\n/)
    .filter((line) => !/^conflict_(of|device):/.test(line));
  const rest = text.slice(front[0].length);
  if (kept.length === 0 || kept.every((line) => line.trim() === '')) return rest;
  return `---${newline}${kept.join(newline)}${newline}---${front[3] ?? ''}${rest}`;
}
