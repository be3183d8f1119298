/**
 * A chat kept as Markdown in the vault (docs/chat.md, default folder `Cairn/Chats/`), so history
 * syncs and is searchable like any note, and can be reopened from a list.
 *
 * ```markdown
 * ---
 * id: 6f1c…
 * type: chat
 * title: What is the visa fee?
 * created: 2026-11-22T10:30:00+01:00
 * updated: 2026-11-22T10:31:00+01:00
 * timezone: Europe/Berlin
 * ---
 * ## You · 2026-11-22 10:30
 * What is the visa fee?
 *
 * ## Cairn · 2026-11-22 10:30
 * > The visa fee is $50. [1]
 *
 * Sources:
 * 1. [[Travel/Visa rules.md#Fees|Visa rules]]
 *
 * <!-- cairn-tool: answer -->
 *
 * ## You · 2026-11-22 10:31
 * note: passport photo
 *
 * ## Cairn · 2026-11-22 10:31
 * Note created: "passport photo".
 *
 * Wrote: [[Cairn/Notes/passport-photo.md]]
 *
 * <!-- cairn-tool: create_note -->
 * <!-- cairn-undo: {"action":{"kind":"delete_note","id":"0f8c…","path":"Cairn/Notes/passport-photo.md"},"hash":"1a2b…"} -->
 * ```
 *
 * Each message is an H2 section `## You · <local time>` or `## Cairn · <local time>`. A line
 * inside a message that would read as such a heading is written with a leading backslash and
 * read back without it, so any text round-trips. Citations are wiki links `[[path#heading]]`
 * (`#page=N` for PDFs), under "Sources:"; a file a write tool made is linked under "Wrote:".
 * What Undo needs is kept in a last `<!-- cairn-undo: … -->` comment (hidden in reading view):
 * the engine's undo action as one line of JSON, and the written file's `textHash` when it was
 * in the vault then, so a reopened chat offers Undo only while that file is unchanged.
 * Parsing never throws: a file that is not a readable chat comes back as a problem naming the
 * line and field; an undo comment that does not read is dropped (that card has no Undo).
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Citation } from '../protocol/citation';
import {
  formatInZone,
  formatWall,
  instantToWall,
  isValidZone,
  parseLocalDateTime,
  wallToInstant,
} from '../reminders/local-time';
import type { ChatTurn, UndoAction } from './chat-engine';
import { isToolName, type ToolName } from './tool-schemas';
import { isRecord } from '../protocol/json';

export const CONVERSATION_TYPE = 'chat';
export const CONVERSATION_TITLE_MAX_CHARS = 60;

export interface ConversationLink {
  path: string;
  /** Heading for notes; absent for a whole note or a PDF. */
  heading?: string;
  /** Page for PDFs. */
  page?: number;
  /** Shown text; the note title when written by Cairn. */
  title?: string;
}

export interface ConversationMessage {
  role: 'user' | 'assistant';
  /** Epoch ms, minute resolution once written. */
  at: number;
  text: string;
  tool?: ToolName;
  citations: ConversationLink[];
  /** Vault path a write tool created or changed. */
  wrote?: string;
  /** What undoes that write, as kept in the file. */
  undo?: StoredUndo;
}

/** An undo action as a conversation file keeps it. */
export interface StoredUndo {
  action: UndoAction;
  /** `textHash` (shared/search/hash) of the written file right after the write, if it was there. */
  hash?: string;
}

export interface Conversation {
  id: string;
  title: string;
  created: number;
  updated: number;
  timezone: string;
  messages: ConversationMessage[];
}

export interface ConversationProblem {
  message: string;
  /** 1-based line of the file, when one is to blame. */
  line?: number;
  field?: string;
}

export type ConversationParse =
  { ok: true; conversation: Conversation } | { ok: false; problem: ConversationProblem };

const ROLE_LABEL = { user: 'You', assistant: 'Cairn' } as const;
const MESSAGE_HEADING = /^## (You|Cairn) · (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})\s*$/;
/** Anything a reader could take for a message heading, escaped or not. */
const HEADING_LIKE = /^\\*## (?:You|Cairn) · /;
const TOOL_COMMENT = /^<!-- cairn-tool: ([a-z_]+) -->$/;
const LINK_ITEM = /^\d+\. \[\[([^\]|#]+)(?:#([^\]|]*))?(?:\|([^\]]*))?\]\]$/;
const WROTE_LINE = /^Wrote: \[\[([^\]|#]+)(?:\|[^\]]*)?\]\]$/;
const UNDO_COMMENT = /^<!-- cairn-undo: (\{.*\}) -->$/;

/** A new, empty conversation; `id` comes from the caller (crypto.randomUUID where it runs). */
export function newConversation(
  id: string,
  at: number,
  timezone: string,
  firstMessage: string,
): Conversation {
  return {
    id,
    title: conversationTitle(firstMessage),
    created: at,
    updated: at,
    timezone,
    messages: [],
  };
}

/** The first line of the first message, at most 60 characters, cut at a word. */
export function conversationTitle(message: string): string {
  const firstLine =
    message
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const flat = firstLine.replace(/\s+/g, ' ');
  if (flat.length <= CONVERSATION_TITLE_MAX_CHARS) return flat === '' ? 'Chat' : flat;
  const cut = flat.slice(0, CONVERSATION_TITLE_MAX_CHARS + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut.slice(0, CONVERSATION_TITLE_MAX_CHARS)).trim()}…`;
}

/**
 * A user message with images as the chat file keeps it: the text, then one `(image: name)` line
 * per image. The images themselves are not kept (no base64 in the Markdown).
 */
export function withImageNotes(text: string, names: readonly string[]): string {
  const notes = names.map((name) => `(image: ${name})`).join('\n');
  const trimmed = text.trim();
  if (notes === '') return trimmed;
  return trimmed === '' ? notes : `${trimmed}\n\n${notes}`;
}

/**
 * File name for a conversation: its local date and time, `2026-11-22 1030 Chat.md`. Never the
 * message's words: file paths reach the companion's info and error logs, the audit log and
 * sync tools' logs, and the first message is whatever the user typed (a password to remember,
 * a health question). The title (from the message) is kept in the front matter, which the chat
 * list shows. A second chat in the same minute gets a short id after `Chat` (the callers).
 */
export function conversationFileName(conversation: Conversation): string {
  const wall = formatWall(instantToWall(conversation.created, conversation.timezone));
  const stamp = `${wall.slice(0, 10)} ${wall.slice(11, 13)}${wall.slice(14, 16)}`;
  return `${stamp} Chat.md`;
}

/**
 * Adds a finished engine turn (the user's message and Cairn's reply) to a conversation.
 * `writtenHash` is the `textHash` of the file the turn wrote, read back right after the write.
 */
export function appendTurn(
  conversation: Conversation,
  turn: ChatTurn,
  writtenHash?: string,
): Conversation {
  const user: ConversationMessage = { role: 'user', at: turn.at, text: turn.user, citations: [] };
  const assistant: ConversationMessage = {
    role: 'assistant',
    at: turn.at,
    text: turn.assistant,
    citations: turn.citations.map(linkOf),
  };
  if (turn.tool !== undefined) assistant.tool = turn.tool;
  const wrote = writtenPath(turn);
  if (wrote !== undefined) assistant.wrote = wrote;
  const action = undoActionOf(turn);
  if (action !== undefined) {
    assistant.undo = writtenHash === undefined ? { action } : { action, hash: writtenHash };
  }
  return {
    ...conversation,
    updated: Math.max(conversation.updated, turn.at),
    messages: [...conversation.messages, user, assistant],
  };
}

export function formatConversation(conversation: Conversation): string {
  const zone = conversation.timezone;
  const frontMatter = stringifyYaml(
    {
      id: conversation.id,
      type: CONVERSATION_TYPE,
      title: conversation.title,
      created: formatInZone(conversation.created, zone),
      updated: formatInZone(conversation.updated, zone),
      timezone: zone,
    },
    { lineWidth: 0 },
  );
  const sections = conversation.messages.map((message) => {
    const wall = formatWall(instantToWall(message.at, zone));
    const lines = [`## ${ROLE_LABEL[message.role]} · ${wall.slice(0, 10)} ${wall.slice(11, 16)}`];
    lines.push(...escapeBody(message.text));
    if (message.citations.length > 0) {
      lines.push(
        '',
        'Sources:',
        ...message.citations.map((link, i) => `${i + 1}. ${formatLink(link)}`),
      );
    }
    if (message.wrote !== undefined) lines.push('', `Wrote: [[${linkTarget(message.wrote)}]]`);
    if (message.tool !== undefined) lines.push('', `<!-- cairn-tool: ${message.tool} -->`);
    if (message.undo !== undefined) {
      if (message.tool === undefined) lines.push('');
      lines.push(`<!-- cairn-undo: ${undoJson(message.undo)} -->`);
    }
    return lines.join('\n');
  });
  return `---\n${frontMatter}---\n${sections.join('\n\n')}${sections.length > 0 ? '\n' : ''}`;
}

export function parseConversation(text: string): ConversationParse {
  if (typeof text !== 'string') return problem('the file is not text');
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return problem('no front matter: the first line must be ---', 1);
  const close = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (close < 0) return problem('the front matter is not closed with ---', 1);

  let meta: unknown;
  try {
    meta = parseYaml(lines.slice(1, close).join('\n'));
  } catch (error) {
    return problem(`the front matter is not valid YAML: ${describe(error)}`, 2);
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return problem('the front matter is not a set of keys', 2);
  }
  const fields = meta as Record<string, unknown>;
  const lineOf = (key: string) => {
    const index = lines.slice(1, close).findIndex((line) => line.startsWith(`${key}:`));
    return index < 0 ? 1 : index + 2;
  };
  if (fields.type !== CONVERSATION_TYPE) {
    return problem(`type must be "${CONVERSATION_TYPE}"`, lineOf('type'), 'type');
  }
  for (const key of ['id', 'title', 'created', 'updated', 'timezone'] as const) {
    if (typeof fields[key] !== 'string' || (fields[key] as string).trim() === '') {
      return problem(`${key} is missing or not text`, lineOf(key), key);
    }
  }
  const timezone = fields.timezone as string;
  if (!isValidZone(timezone)) {
    return problem(`timezone "${timezone}" is not an IANA zone`, lineOf('timezone'), 'timezone');
  }
  const created = Date.parse(fields.created as string);
  const updated = Date.parse(fields.updated as string);
  if (Number.isNaN(created))
    return problem('created is not an ISO date-time', lineOf('created'), 'created');
  if (Number.isNaN(updated))
    return problem('updated is not an ISO date-time', lineOf('updated'), 'updated');

  const messages: ConversationMessage[] = [];
  let current: { message: ConversationMessage; body: string[] } | undefined;
  const finish = () => {
    if (current === undefined) return;
    readBody(current.message, current.body);
    messages.push(current.message);
  };
  for (let index = close + 1; index < lines.length; index++) {
    const line = lines[index]!;
    const heading = MESSAGE_HEADING.exec(line);
    if (heading) {
      finish();
      const wall = parseLocalDateTime(`${heading[2]}T${heading[3]}`);
      if (!wall.ok) return problem(`message time: ${wall.message}`, index + 1);
      const role = heading[1] === 'You' ? 'user' : 'assistant';
      current = {
        message: { role, at: wallToInstant(wall.wall, timezone), text: '', citations: [] },
        body: [],
      };
    } else if (current !== undefined) {
      current.body.push(line);
    } else if (line.trim() !== '') {
      return problem(
        'text before the first message heading (## You · … or ## Cairn · …)',
        index + 1,
      );
    }
  }
  finish();
  return {
    ok: true,
    conversation: {
      id: fields.id as string,
      title: fields.title as string,
      created,
      updated,
      timezone,
      messages,
    },
  };
}

/** One entry of the "reopen a chat" list. */
export interface ConversationListing {
  path: string;
  id: string;
  title: string;
  updated: number;
  messages: number;
}

/** The chats among `files`, most recently updated first, and the files that could not be read. */
export function listConversations(files: ReadonlyArray<{ path: string; text: string }>): {
  conversations: ConversationListing[];
  problems: Array<ConversationProblem & { path: string }>;
} {
  const conversations: ConversationListing[] = [];
  const problems: Array<ConversationProblem & { path: string }> = [];
  for (const file of files) {
    const parsed = parseConversation(file.text);
    if (!parsed.ok) {
      problems.push({ path: file.path, ...parsed.problem });
      continue;
    }
    const { id, title, updated, messages } = parsed.conversation;
    conversations.push({ path: file.path, id, title, updated, messages: messages.length });
  }
  conversations.sort((a, b) => b.updated - a.updated || a.path.localeCompare(b.path));
  return { conversations, problems };
}

/** Reads the trailers (tool comment, Wrote:, Sources:) off the end of a message body. */
function readBody(message: ConversationMessage, body: string[]): void {
  const lines = [...body];
  const popBlank = () => {
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  };
  popBlank();
  const undo = UNDO_COMMENT.exec(lines[lines.length - 1] ?? '');
  if (undo) {
    const stored = readStoredUndo(undo[1]!);
    if (stored !== undefined) message.undo = stored;
    lines.pop();
    popBlank();
  }
  const tool = TOOL_COMMENT.exec(lines[lines.length - 1] ?? '');
  if (tool && isToolName(tool[1]!)) {
    message.tool = tool[1];
    lines.pop();
    popBlank();
  }
  const wrote = WROTE_LINE.exec(lines[lines.length - 1] ?? '');
  if (wrote) {
    message.wrote = wrote[1]!;
    lines.pop();
    popBlank();
  }
  let start = lines.length;
  while (start > 0 && LINK_ITEM.test(lines[start - 1]!)) start--;
  if (start < lines.length && lines[start - 1] === 'Sources:') {
    message.citations = lines.slice(start).map((line) => parseLink(LINK_ITEM.exec(line)!));
    lines.length = start - 1;
    popBlank();
  }
  message.text = lines.map(unescapeLine).join('\n');
}

function escapeBody(text: string): string[] {
  return text.split(/\r?\n/).map((line) => {
    if (HEADING_LIKE.test(line)) return `\\${line}`;
    // Lines that would be read back as trailers are escaped the same way.
    if (
      line === 'Sources:' ||
      TOOL_COMMENT.test(line) ||
      UNDO_COMMENT.test(line) ||
      WROTE_LINE.test(line)
    )
      return `\\${line}`;
    if (/^\\+(?:Sources:|<!-- cairn-(?:tool|undo)|Wrote: )/.test(line)) return `\\${line}`;
    return line;
  });
}

function unescapeLine(line: string): string {
  if (/^\\+(?:## (?:You|Cairn) · |Sources:|<!-- cairn-(?:tool|undo)|Wrote: )/.test(line))
    return line.slice(1);
  return line;
}

function linkOf(citation: Citation): ConversationLink {
  const link: ConversationLink = { path: citation.path, title: citation.title };
  if (citation.type === 'pdf') link.page = citation.page;
  else if (citation.heading !== undefined && citation.heading !== '')
    link.heading = citation.heading;
  return link;
}

function formatLink(link: ConversationLink): string {
  const anchor =
    link.page !== undefined
      ? `#page=${link.page}`
      : link.heading !== undefined
        ? `#${linkText(link.heading)}`
        : '';
  const shown = link.title === undefined ? '' : `|${linkText(link.title)}`;
  return `[[${linkTarget(link.path)}${anchor}${shown}]]`;
}

function parseLink(match: RegExpExecArray): ConversationLink {
  const link: ConversationLink = { path: match[1]! };
  const anchor = match[2];
  if (anchor !== undefined && anchor !== '') {
    const page = /^page=(\d+)$/.exec(anchor);
    if (page) link.page = Number(page[1]);
    else link.heading = anchor;
  }
  if (match[3] !== undefined) link.title = match[3];
  return link;
}

/** Characters that end or split a wiki link cannot appear inside one. */
function linkText(text: string): string {
  return text
    .replace(/[[\]|#^\n]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function linkTarget(path: string): string {
  return path.replace(/[[\]|#^\n]/g, ' ');
}

function writtenPath(turn: ChatTurn): string | undefined {
  if (turn.result === undefined || !turn.result.success) return undefined;
  const data = turn.result.data as { undo?: { path?: unknown; previous?: { path?: unknown } } };
  const path = data.undo?.path ?? data.undo?.previous?.path;
  return typeof path === 'string' ? path : undefined;
}

function undoActionOf(turn: ChatTurn): UndoAction | undefined {
  if (turn.result === undefined || !turn.result.success) return undefined;
  const undo = (turn.result.data as { undo?: unknown } | null)?.undo;
  return isUndoAction(undo) ? undo : undefined;
}

/** One line of JSON that cannot end the comment early (`<`/`>` only occur inside strings). */
function undoJson(stored: StoredUndo): string {
  return JSON.stringify(stored).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

function readStoredUndo(json: string): StoredUndo | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isUndoAction(value.action)) return undefined;
  if (value.hash !== undefined && typeof value.hash !== 'string') return undefined;
  return value.hash === undefined
    ? { action: value.action }
    : { action: value.action, hash: value.hash };
}

/** The shapes of UndoAction; a hand-edited comment that fits none is not trusted. */
function isUndoAction(value: unknown): value is UndoAction {
  if (!isRecord(value)) return false;
  const text = (key: string) => typeof value[key] === 'string' && value[key] !== '';
  switch (value.kind) {
    case 'delete_note':
    case 'delete_reminder':
      return text('id') && text('path');
    case 'remove_appended':
      return text('path') && typeof value.text === 'string';
    case 'restore_reminder': {
      const previous = value.previous;
      return (
        isRecord(previous) &&
        typeof previous.id === 'string' &&
        typeof previous.path === 'string' &&
        typeof previous.status === 'string' &&
        typeof previous.due === 'string'
      );
    }
    default:
      return false;
  }
}

function problem(message: string, line?: number, field?: string): ConversationParse {
  const found: ConversationProblem = { message };
  if (line !== undefined) found.line = line;
  if (field !== undefined) found.field = field;
  return { ok: false, problem: found };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
