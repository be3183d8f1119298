import { noteLink } from '../digest/digest-builder';
import { stringifyNoteFile } from '../markdown/front-matter';
import type { Citation } from '../protocol/citation';
import { formatInZone } from '../reminders/local-time';

/*
 * The note a task's runs are appended to (docs/tasks.md), newest first:
 *
 *   ---
 *   type: task-runs
 *   task: 3f0c…
 *   ---
 *   # House: runs
 *
 *   ## 2026-11-27 17:00 (Europe/Berlin)
 *   <!-- cairn-task-run 2026-11-27T17:00:00+01:00 -->
 *   …the answer…
 *
 *   Sources:
 *   1. [[Projects/House|House]] › Roof, lines 3–9
 *
 * Each entry carries its slot in a comment, so writing a slot that is already there changes
 * nothing: a run repeated after a crash leaves one entry.
 */

/** What a run produced, in Markdown, with the passages it stands on. */
export interface TaskRunResult {
  /** Markdown; its first line is the push message's body. */
  readonly text: string;
  readonly citations: readonly Citation[];
}

const MARKER = 'cairn-task-run';

/** The comment that identifies the entry of one slot. */
export function runMarker(slot: number, zone: string): string {
  return `<!-- ${MARKER} ${formatInZone(slot, zone)} -->`;
}

/** `2026-11-27 17:00 (Europe/Berlin)`. */
export function slotHeading(slot: number, zone: string): string {
  return `${formatInZone(slot, zone).slice(0, 16).replace('T', ' ')} (${zone})`;
}

/** One run's entry, ending with a blank line. */
export function renderRunEntry(slot: number, zone: string, result: TaskRunResult): string {
  const lines = [`## ${slotHeading(slot, zone)}`, runMarker(slot, zone), result.text.trim()];
  if (result.citations.length > 0) {
    lines.push('', 'Sources:');
    // Numbered: an answer's `[1]` markers point at these.
    result.citations.forEach((citation, index) =>
      lines.push(`${index + 1}. ${citationLink(citation)}`),
    );
  }
  return `${lines.join('\n')}\n\n`;
}

function citationLink(citation: Citation): string {
  const link = noteLink(citation.path, citation.title);
  if (citation.type === 'pdf') return `${link}, page ${citation.page}`;
  const heading = citation.heading ? ` › ${citation.heading}` : '';
  const [from, to] = citation.lines;
  return `${link}${heading}, ${from === to ? `line ${from}` : `lines ${from}–${to}`}`;
}

/** A new runs note holding no entry yet. */
export function emptyRunsNote(taskId: string, taskName: string): string {
  return stringifyNoteFile(
    [
      ['type', 'task-runs'],
      ['task', taskId],
    ],
    `# ${taskName}: runs\n\nNewest first. Cairn adds an entry each time the task runs.\n\n`,
  );
}

/** Whether `text` already holds the entry of this slot. */
export function hasRunEntry(text: string, slot: number, zone: string): boolean {
  return text.includes(runMarker(slot, zone));
}

/**
 * `text` with `entry` inserted above the newest entry (or at the end when there is none); the
 * text unchanged when the slot's entry is already there. Nothing else in the note moves.
 */
export function insertRunEntry(text: string, entry: string, slot: number, zone: string): string {
  if (hasRunEntry(text, slot, zone)) return text;
  const first = text.search(new RegExp(`^## .*\\r?\\n<!-- ${MARKER} `, 'm'));
  if (first < 0) {
    const base =
      text.length === 0 || text.endsWith('\n\n')
        ? text
        : text.endsWith('\n')
          ? `${text}\n`
          : `${text}\n\n`;
    return base + entry;
  }
  return text.slice(0, first) + entry + text.slice(first);
}

/** The first non-empty line of a result as plain text (a push shows no Markdown). */
export function firstLine(text: string): string {
  const line = text.split(/\r?\n/).find((entry) => entry.trim() !== '') ?? '';
  return line
    .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*/, '')
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/\[\[([^\]]*)\]\]/g, (_, target: string) => target.split('/').pop() ?? target)
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .trim();
}
