/**
 * The "New note" and "Ask Cairn" commands' input handling, without Obsidian: the form's fields
 * checked with a message naming the field, and the question prefilled from a note or selection.
 */

export const NOTE_TITLE_MAX_CHARS = 200;
export const NOTE_BODY_MAX_CHARS = 1_000_000;
/** How much of a selection is quoted into the chat's question. */
export const ASK_SELECTION_MAX_CHARS = 600;

export interface NoteFormInput {
  title: string;
  tags: string;
  body: string;
}

export type NoteFormCheck =
  | { ok: true; note: { title: string; tags: string[]; body: string; source: 'command' } }
  | { ok: false; field: 'title' | 'tags' | 'body'; message: string };

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** Obsidian tags: letters, digits, `_`, `-`, `/` for nesting; not only digits. */
const TAG = /^[\p{L}\p{N}_\-/]+$/u;

export function checkNoteForm(input: NoteFormInput): NoteFormCheck {
  const title = input.title.trim();
  if (title === '') return { ok: false, field: 'title', message: 'Title: give the note a title.' };
  if (/[\r\n]/.test(title) || CONTROL.test(title)) {
    return { ok: false, field: 'title', message: 'Title: no line breaks or control characters.' };
  }
  if (title.length > NOTE_TITLE_MAX_CHARS) {
    return {
      ok: false,
      field: 'title',
      message: `Title: at most ${NOTE_TITLE_MAX_CHARS} characters (this one has ${title.length}).`,
    };
  }
  const tags: string[] = [];
  for (const raw of input.tags.split(/[\s,]+/)) {
    const tag = raw.replace(/^#/, '');
    if (tag === '') continue;
    if (!TAG.test(tag) || /^\d+$/.test(tag)) {
      return {
        ok: false,
        field: 'tags',
        message: `Tags: "${raw}" is not a tag (letters, digits, _ - / only, not only digits).`,
      };
    }
    if (!tags.some((known) => known.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  }
  if (CONTROL.test(input.body)) {
    return { ok: false, field: 'body', message: 'Body: contains control characters.' };
  }
  if (input.body.length > NOTE_BODY_MAX_CHARS) {
    return {
      ok: false,
      field: 'body',
      message: `Body: at most ${NOTE_BODY_MAX_CHARS} characters.`,
    };
  }
  // The palette's New note: `source: command` tells it apart from notes the chat wrote.
  return {
    ok: true,
    note: { title, tags, body: input.body.replace(/\r\n?/g, '\n'), source: 'command' },
  };
}

/**
 * The question the chat opens with for "Ask Cairn about this note/selection": the selection
 * quoted (shortened), else the note's title, so the answer searches around it. The user adds
 * the question itself after it.
 */
export function askPrefill(note: { title: string }, selection: string): string {
  const quoted = selection.trim();
  if (quoted === '') return `About the note "${note.title}": `;
  const shortened =
    quoted.length > ASK_SELECTION_MAX_CHARS
      ? `${quoted.slice(0, ASK_SELECTION_MAX_CHARS).trimEnd()}…`
      : quoted;
  const lines = shortened.split(/\r?\n/).map((line) => `> ${line}`);
  return `About this passage of "${note.title}":\n${lines.join('\n')}\n\n`;
}
