/**
 * Deterministic routing (docs/chat.md): a chat message becomes exactly one validated tool call, or a
 * plain reply (small talk, help, or a question back when something needed is missing). No LLM.
 *
 * Rules are tried in this order; the first that matches decides. The order is the ambiguity
 * policy:
 *  1. input checks: blank, too long, control characters → an error, nothing runs;
 *  2. small talk and help → a plain reply;
 *  3. `note`: "note: …", "new note: …", "note that …", "take a note (that) …", "new note titled X
 *     with Y", "jot down …": an explicit note command wins over whatever the note says
 *     ("note: remind me to …", "note: the report is done"); before it, `memory` (docs/clients.md):
 *     "remember that …" / "remember: …" → `remember`, "forget that …" → `forget`, "what do you
 *     remember/know about …" → `recall` (with a category for "… about movies", "my food memories");
 *  4. `list`: asks about reminders or what is due ("what's due this week?", "show my
 *     reminders", "remind me what's due tomorrow"); before 7 so "remind me what's due" lists;
 *  5. `complete`: "mark X as done", "complete the X reminder", "X is done";
 *  6. `snooze`: "snooze/postpone/delay X [for <duration> | until <time>]" (15 minutes when no
 *     duration is said, like the phone's snooze button); "delete/cancel the X reminder" gets a
 *     reply saying how, since there is no such tool;
 *  7. "remind me what/who/where/how/why/which/whether …" (a question, not a reminder) → `answer`;
 *  8. `reminder`: "remind me …", "set a reminder …", "reminder: …", "don't let me forget …";
 *     "remind me about X …" → `memory_to_reminder` (linked to the memory about X, if any);
 *     needs a time: without one the reply asks for it;
 *  9. `append`: "add to my shopping list: milk", "add milk to my shopping list", "append X to Y";
 *     a target named "… list" gets one `- item` line per comma-separated item;
 * 10. `search`: "search for X", "find notes about X", "look up X", "where did I write about X";
 * 11. `question`: ends with "?" or opens with a question word ("what", "how", "tell me",
 *     "summarize", …) → `answer`;
 * 12. fallback: up to four words reads as keywords → `search`; anything longer → `answer`.
 *
 * Snooze and complete name a reminder in the user's words; the router passes those words as
 * `id` and the engine resolves them (an id first, then a title match), since only the engine
 * can see the reminders.
 */
import type { ToolError } from '../protocol/errors';
import { CHAT_MESSAGE_MAX_CHARS } from '../protocol/chat';
import { isValidZone } from '../reminders/local-time';
import { parseReminderPhrase } from './reminder-phrase';
import { categoryFromWords } from '../memory/memory-category';
import { parseEveryPhrase } from '../reminders/every-phrase';
import { minutesUntil, readDayRange, readTrailingDuration } from './time-words';
import { validateToolCall, type ToolCall, type ToolName } from './tool-schemas';
import { zoneNow, type ZoneNow } from './zone-calendar';

export type RouteRule =
  | 'invalid'
  | 'small-talk'
  | 'help'
  | 'list'
  | 'complete'
  | 'snooze'
  | 'remind-question'
  | 'reminder'
  | 'task'
  | 'note'
  | 'memory'
  | 'append'
  | 'search'
  | 'question'
  | 'keywords'
  | 'statement'
  /** Chosen by an LLM router (ollama-router.ts), not by these rules. */
  | 'llm';

export type RouteDecision =
  | { kind: 'tool'; call: ToolCall; rule: RouteRule }
  /** `missingTime`: a reminder was asked for without a time; the reply asks for it. */
  | { kind: 'reply'; text: string; rule: RouteRule; missingTime?: true }
  | { kind: 'invalid'; error: ToolError; rule: 'invalid' };

export interface RouteContext {
  /** Epoch ms (from the injected Clock). */
  now: number;
  /** IANA zone of the user (the vault's setting). */
  zone: string;
}

/** Snooze length when none is said: the phone's "snooze 15 min" action. */
export const DEFAULT_SNOOZE_MINUTES = 15;
/** Longest title derived from note text, cut at a word boundary. */
export const DERIVED_TITLE_MAX_CHARS = 60;
/** Up to this many words without a question shape read as search keywords. */
const KEYWORD_MAX_WORDS = 4;

export const HELP_TEXT = [
  'I can search your vault, answer questions from it with citations, and write notes and reminders. Try:',
  '- "what did I write about the visa?"',
  '- "find notes about taxes"',
  '- "remind me next Monday at 8 to call the bank"',
  '- "note: the wifi password is on the router"',
  '- "add to my shopping list: milk, eggs"',
  '- "what\'s due this week?", "snooze the bank reminder for an hour", "mark call the bank as done"',
].join('\n');

// Control characters other than tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function routeMessage(message: string, context: RouteContext): RouteDecision {
  if (typeof message !== 'string' || message.trim() === '') {
    return invalid('the message is empty', 'message');
  }
  if (message.length > CHAT_MESSAGE_MAX_CHARS) {
    return invalid(
      `the message is too long (${message.length} characters, at most ${CHAT_MESSAGE_MAX_CHARS})`,
      'message',
    );
  }
  const control = CONTROL_CHARACTER.exec(message);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return invalid(
      `the message contains a control character (U+${code}) at position ${control.index + 1}`,
      'message',
    );
  }
  if (!isValidZone(context.zone)) {
    return invalid(`"${context.zone}" is not an IANA time zone`, 'timezone');
  }
  if (!Number.isFinite(context.now)) return invalid('the current time is not a number', 'now');

  const clock = zoneNow(context.now, context.zone);
  const text = normalise(message);
  for (const rule of RULES) {
    const decision = rule(text, clock);
    if (decision !== undefined) return decision;
  }
  return wordCount(text) <= KEYWORD_MAX_WORDS
    ? tool('keywords', 'search', { query: stripEndPunctuation(text) })
    : tool('statement', 'answer', { question: text });
}

type Rule = (text: string, clock: ZoneNow) => RouteDecision | undefined;

const RULES: Rule[] = [
  smallTalk,
  memory,
  createNote,
  listReminders,
  completeReminder,
  snoozeReminder,
  removeReminder,
  remindQuestion,
  scheduleTask,
  createReminder,
  appendToNote,
  search,
  question,
];

/** Curly quotes to straight ones, "hey cairn," and "please/can you" openers off, one line. */
function normalise(message: string): string {
  return message
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .trim()
    .replace(/^(?:(?:hey|hi|ok|okay)\s+)?cairn\b[,:!]?\s*/i, '')
    .replace(/^(?:(?:please|pls|can you|could you|would you|will you)\s+)+/i, '')
    .trim();
}

const GREETING =
  /^(?:hi|hello|hey|hiya|yo|howdy|what'?s up|how are you(?: doing)?|good (?:morning|afternoon|evening|night)|thanks|thank you|thx|ty|cheers|ok|okay|cool|great|nice|bye|goodbye|see you)(?: (?:there|cairn|so much|a lot))?[\s!?.,:)]*$/i;
const HELP =
  /^(?:help|\?|what can you do|what do you do|how do (?:i|you) use (?:you|this|cairn)|what are you|who are you|commands)[\s?!.]*$/i;

function smallTalk(text: string): RouteDecision | undefined {
  if (HELP.test(text)) return { kind: 'reply', text: HELP_TEXT, rule: 'help' };
  if (!GREETING.test(text)) return undefined;
  const reply = /^(?:thanks|thank you|thx|ty|cheers)/i.test(text)
    ? "You're welcome."
    : /^(?:bye|goodbye|see you)/i.test(text)
      ? 'Bye!'
      : 'Hello! Ask me about your notes, or tell me what to remember. Say "help" for examples.';
  return { kind: 'reply', text: reply, rule: 'small-talk' };
}

const LIST_OPENERS =
  /^(?:(?:remind me )?(?:what(?:'s| is| are)?|whats|which|any|are there any|do i have(?: any)?|have i got(?: any)?|show(?: me)?|list|see|view|display|get|give me|tell me|open|my|all(?: my)?|reminders|upcoming|pending|active|done|completed|finished|cancelled|overdue)\b)/i;
const DUE_PHRASES =
  /^(?:remind me )?(?:what(?:'s| is| are)?|whats|anything|is (?:there )?anything|what do i have|what have i got)\s+(?:still\s+)?(?:due|coming up|on my (?:plate|agenda|schedule|calendar)|scheduled|planned|on)\b/i;

function listReminders(text: string, clock: ZoneNow): RouteDecision | undefined {
  const mentionsReminders = /\breminders?\b/i.test(text) && LIST_OPENERS.test(text);
  const asksWhatIsDue =
    (DUE_PHRASES.test(text) && !/\bdue date\b/i.test(text)) ||
    /^(?:(?:my|upcoming|overdue)\s+)?(?:agenda|reminders|upcoming)[\s?!.]*$/i.test(text);
  if (!mentionsReminders && !asksWhatIsDue) return undefined;
  // "reminders about X" is a search for X among reminders, not a listing.
  const about = /\breminders?\s+(?:about|for|mentioning|with)\s+(.+)$/i.exec(text);
  if (about && readDayRange(about[1]!, clock) === undefined) {
    return tool('search', 'search', { query: stripEndPunctuation(about[1]!), type: 'reminder' });
  }
  const args: Record<string, unknown> = {};
  const range = readDayRange(text, clock);
  if (range) Object.assign(args, range);
  if (/\b(?:done|completed|finished)\b/i.test(text)) args.status = 'done';
  else if (/\bcancel+ed\b/i.test(text)) args.status = 'cancelled';
  else if (/\b(?:due|upcoming|coming up|pending|active|open|overdue)\b/i.test(text)) {
    args.status = 'active';
  }
  return tool('list', 'list_reminders', args);
}

const COMPLETE_PATTERNS = [
  /^mark\s+(.+?)\s+(?:as\s+)?(?:done|complete|completed|finished)[\s.!]*$/i,
  /^(?:complete|finish|tick off|check off|cross off)\s+(.+?)[\s.!]*$/i,
  /^(?:i(?:'ve| have)?\s+)?(?:done|finished|completed)\s+(?:with\s+)?(?:the\s+)?(.+?\breminder)[\s.!]*$/i,
  /^(.+?)\s+(?:is|are)\s+(?:done|finished|completed)[\s.!]*$/i,
  /^done:\s*(.+?)[\s.!]*$/i,
];

function completeReminder(text: string): RouteDecision | undefined {
  for (const pattern of COMPLETE_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const reference = reminderReference(match[1]!);
    if (reference === undefined) return askWhichReminder('mark as done');
    return tool('complete', 'complete_reminder', { id: reference });
  }
  return undefined;
}

function snoozeReminder(text: string, clock: ZoneNow): RouteDecision | undefined {
  const match = /^(?:snooze|postpone|delay|push back|defer)\b\s*(.*?)[\s.!]*$/i.exec(text);
  if (!match) return undefined;
  let rest = match[1]!.trim();
  let minutes: number | undefined;
  const until = /\s*\b(?:until|till|til|to)\s+(.+)$/i.exec(rest);
  const duration = readTrailingDuration(rest);
  if (duration) {
    minutes = duration.minutes;
    rest = rest.slice(0, duration.index);
  } else if (until) {
    minutes = minutesUntil(until[1]!, clock);
    if (minutes === undefined) {
      return {
        kind: 'reply',
        text: `I could not read "${until[1]}" as a time in the future. Try "snooze it for an hour".`,
        rule: 'snooze',
      };
    }
    rest = rest.slice(0, until.index);
  }
  const reference = reminderReference(rest);
  if (reference === undefined) return askWhichReminder('snooze');
  return tool('snooze', 'snooze_reminder', {
    id: reference,
    minutes: minutes ?? DEFAULT_SNOOZE_MINUTES,
  });
}

/** "the bank reminder" → "bank"; "my reminder to call the bank" → "call the bank". */
function reminderReference(words: string): string | undefined {
  const reference = words
    .trim()
    .replace(/^(?:the|my|that|this)\s+/i, '')
    .replace(/^reminders?\s+(?:to|about|for|called|named)\s+/i, '')
    .replace(/\s+reminders?$/i, '')
    .replace(/^["']|["']$/g, '')
    .trim();
  if (reference === '' || /^(?:it|that|this|one|reminder|them)$/i.test(reference)) return undefined;
  return reference;
}

function askWhichReminder(action: string): RouteDecision {
  return {
    kind: 'reply',
    text: `Which reminder should I ${action}? Name it, e.g. "${action} the bank reminder".`,
    rule: action === 'snooze' ? 'snooze' : 'complete',
  };
}

/** There is no delete/cancel tool (docs/chat.md): say where it is done instead of searching. */
function removeReminder(text: string): RouteDecision | undefined {
  if (!/^(?:delete|remove|cancel|drop)\b.*\breminders?\b/i.test(text)) return undefined;
  return {
    kind: 'reply',
    text: 'I cannot delete or cancel reminders from the chat. Open the reminder note and set "status: cancelled" (or delete the note), or mark it as done here.',
    rule: 'complete',
  };
}

const REMIND_QUESTION =
  /^remind me\s+(?:of\s+)?(?:what|who|whom|whose|where|when|why|how|which|whether|if)\b/i;

function remindQuestion(text: string): RouteDecision | undefined {
  if (!REMIND_QUESTION.test(text)) return undefined;
  return tool('remind-question', 'answer', { question: text });
}

const REMINDER_OPENERS: RegExp[] = [
  /\bremind me\b/i,
  /^(?:set|add|create|make|schedule|new)\s+(?:me\s+)?(?:a\s+|an\s+)?reminder(?:\s+for\s+me)?\b/i,
  /^reminder\s*:/i,
  /^(?:don't|do not)\s+let me forget\b/i,
];

function createReminder(text: string, clock: ZoneNow): RouteDecision | undefined {
  for (const opener of REMINDER_OPENERS) {
    const match = opener.exec(text);
    if (!match) continue;
    const rest = `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`;
    const phrase = parseReminderPhrase(rest, clock);
    if (!phrase.ok) {
      return phrase.missingTime
        ? { kind: 'reply', text: phrase.reply, rule: 'reminder', missingTime: true }
        : { kind: 'reply', text: phrase.reply, rule: 'reminder' };
    }
    const args: Record<string, unknown> = {
      title: phrase.title,
      due: phrase.due,
      timezone: clock.zone,
    };
    if (phrase.repeat !== undefined) args.repeat = phrase.repeat;
    // "remind me about the pizza place …": about something remembered, the reminder links it
    // (docs/memory-digest-calendar.md); the runner writes a plain one when nothing matches.
    if (ABOUT_SOMETHING.test(rest)) {
      return tool('reminder', 'memory_to_reminder', { memory: phrase.title, ...args });
    }
    return tool('reminder', 'create_reminder', args);
  }
  return undefined;
}

const ABOUT_SOMETHING = /^\s*(?:about|of)\s/i;

/**
 * "every Friday at 5pm tell me what I wrote about the house", "every month on the 1st at 9:00
 * search for invoice": a recurring `every …` phrase, then what to do (docs/tasks.md). "remind me"
 * stays a reminder.
 */
const TASK_REQUEST =
  /^(every\s.+?)[\s,]+(tell me|show me|send me|give me|ask|answer|search for|search|find|list)\s+(.+)$/i;

function scheduleTask(text: string): RouteDecision | undefined {
  const match = TASK_REQUEST.exec(text);
  if (!match) return undefined;
  const every = parseEveryPhrase(match[1]!);
  if (!every.ok) return { kind: 'reply', text: every.message, rule: 'task' };
  const verb = match[2]!.toLowerCase();
  const request = stripEndPunctuation(match[3]!.trim());
  const searching = /^(?:search|find|list)/.test(verb);
  const name = taskName(request);
  const args: Record<string, unknown> = {
    name,
    schedule: `RRULE:${every.rrule}`,
    action: searching ? 'search' : 'ask',
    deliver: ['note', 'push'],
    ...(searching
      ? { query: request }
      : { question: `${request.charAt(0).toUpperCase()}${request.slice(1)}?` }),
  };
  return tool('task', 'create_task', args);
}

/** A file name from the request: its first words, without characters a file name cannot hold. */
function taskName(request: string): string {
  const cleaned = request
    .replace(/[\\/:*?"<>|#^[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const words = cleaned.split(' ').slice(0, 8).join(' ').slice(0, 60).trim();
  const base = words === '' ? 'Task' : words;
  return base.charAt(0).toUpperCase() + base.slice(1);
}

const REMEMBER = /^remember(?:\s+that|\s*:)\s*([\s\S]+)$/i;
const FORGET = /^forget(?:\s+that|\s+about|\s*:)?\s+([\s\S]+)$/i;
const RECALL =
  /^what (?:else )?do you (?:remember|know)(?: about\s+([\s\S]*?))?[\s?!.]*$|^(?:what have you remembered|list (?:my |your )?memories|show (?:me )?(?:my |your )?memories)[\s?!.]*$/i;

/** "show my movie memories", "list food memories", "my book memories". */
const RECALL_CATEGORY =
  /^(?:(?:show|list|give)(?: me)?\s+)?(?:(?:my|your|all(?: my)?)\s+)?([a-z]+)\s+memories[\s?!.]*$|^(?:show|list)(?: me)?\s+(?:my |your )?memories\s+(?:about|of|under|in)\s+([a-z]+)[\s?!.]*$/i;

function memory(text: string): RouteDecision | undefined {
  const remember = REMEMBER.exec(text);
  if (remember) return tool('memory', 'remember', { text: stripEndPunctuation(remember[1]!) });
  const forget = FORGET.exec(text);
  if (forget) return tool('memory', 'forget', { memory: stripEndPunctuation(forget[1]!) });
  const byCategory = RECALL_CATEGORY.exec(text);
  const named = byCategory ? categoryFromWords(byCategory[1] ?? byCategory[2] ?? '') : undefined;
  if (named !== undefined) return tool('memory', 'recall', { query: '', category: named });
  const recall = RECALL.exec(text);
  if (recall) {
    const about = stripEndPunctuation(recall[1] ?? '');
    // "what do you remember about movies?": a category, not words to look for.
    const category = categoryFromWords(about);
    if (category !== undefined) return tool('memory', 'recall', { query: '', category });
    return tool('memory', 'recall', { query: /^(?:me|myself|us)$/i.test(about) ? '' : about });
  }
  return undefined;
}

const TITLED_NOTE =
  /^(?:(?:create|make|add|start|new|write)\s+)?(?:a\s+)?(?:new\s+)?note\s+(?:titled|called|named|entitled)\s+(?:"([^"]+)"|'([^']+)'|(.+?))(?:\s*(?::|\bwith\b(?:\s+the\s+text)?|\bsaying\b|\bcontaining\b|\bthat says\b)\s*:?\s*([\s\S]*))?$/i;
const BODY_NOTE =
  /^(?:(?:new|quick)\s+)?(?:note|memo)\s*:\s*([\s\S]+)$|^note\s+(?:that|down)\s+([\s\S]+)$|^(?:(?:take|make|write|add|create|jot)\s+(?:down\s+)?(?:a|an)\s+(?:quick\s+|new\s+)?note\s*(?:that|saying|to say|of|:)?\s*:?\s*([\s\S]+))$|^(?:jot|write|note)\s+down\s*:?\s*([\s\S]+)$/i;

function createNote(text: string): RouteDecision | undefined {
  const titled = TITLED_NOTE.exec(text);
  if (titled) {
    const title = (titled[1] ?? titled[2] ?? titled[3] ?? '').trim();
    const body = (titled[4] ?? '').trim();
    return noteCall(title, body);
  }
  if (/^(?:note|memo)\s*:$/i.test(text)) return noteNeedsText();
  const bodied = BODY_NOTE.exec(text);
  if (!bodied) return undefined;
  const body =
    bodied
      .slice(1)
      .find((group) => group !== undefined)
      ?.trim() ?? '';
  if (body === '') return noteNeedsText();
  // The body keeps the user's own line breaks and spacing: only the command words go.
  return noteCall(deriveTitle(body), body);
}

function noteNeedsText(): RouteDecision {
  return {
    kind: 'reply',
    text: 'What should the note say? For example: "note: the spare key is under the pot".',
    rule: 'note',
  };
}

function noteCall(title: string, body: string): RouteDecision {
  const tags = [...new Set([...body.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)].map((m) => m[1]!))];
  const args: Record<string, unknown> = { title: stripEndPunctuation(title), body };
  if (tags.length > 0) args.tags = tags;
  return tool('note', 'create_note', args);
}

/** The first line or sentence, at most DERIVED_TITLE_MAX_CHARS, cut at a word, without #tags. */
export function deriveTitle(body: string): string {
  const firstLine = body.split('\n').find((line) => line.trim() !== '') ?? '';
  // No lookbehind: older iOS WebViews, where Obsidian mobile runs, reject it.
  const sentence = /^.*?[.!?](?=\s|$)/.exec(firstLine)?.[0] ?? firstLine;
  let title = stripEndPunctuation(
    sentence
      .replace(/(?:^|\s)#[\p{L}\p{N}_/-]+/gu, ' ')
      .replace(/^[-*+>#\s]+/, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  if (title.length > DERIVED_TITLE_MAX_CHARS) {
    const cut = title.slice(0, DERIVED_TITLE_MAX_CHARS + 1);
    const space = cut.lastIndexOf(' ');
    title = (space > 20 ? cut.slice(0, space) : cut.slice(0, DERIVED_TITLE_MAX_CHARS)).trim();
  }
  return title === '' ? 'Untitled note' : title.charAt(0).toUpperCase() + title.slice(1);
}

const APPEND_COLON =
  /^(?:add|append|put|write)\s+(?:this\s+)?(?:to|on|onto|in|into)\s+(?:my\s+|the\s+)?(.+?)\s*:\s*([\s\S]+)$/i;
const APPEND_TO =
  /^(?:add|put|write)\s+([\s\S]+?)\s+(?:to|on|onto|in|into)\s+(?:(?:my|the)\s+(.+?)|(.+?\b(?:list|note|notes|log|journal|page)))[\s.!]*$/i;
const APPEND_EXPLICIT = /^append\s+([\s\S]+?)\s+(?:to|onto)\s+(?:my\s+|the\s+)?(.+?)[\s.!]*$/i;

function appendToNote(text: string): RouteDecision | undefined {
  const colon = APPEND_COLON.exec(text);
  const to = colon ? undefined : (APPEND_EXPLICIT.exec(text) ?? APPEND_TO.exec(text));
  if (!colon && !to) return undefined;
  const rawTarget = colon ? colon[1]! : (to![2] ?? to![3])!;
  const rawText = (colon ? colon[2]! : to![1]!).trim().replace(/^["']|["']$/g, '');
  const note = rawTarget
    .trim()
    .replace(/^["']|["']$/g, '')
    .replace(/\s+note$/i, '')
    .trim();
  if (note === '' || rawText === '') return undefined;
  const isList = /\blist$/i.test(note);
  const body = isList ? listItems(rawText) : rawText;
  return tool('append', 'append_to_note', { note, text: body });
}

/** "milk, eggs and bread" → "- milk\n- eggs\n- bread"; a single item stays one line. */
function listItems(text: string): string {
  const items = text.includes(',') ? text.split(/\s*,\s*(?:and\s+)?|\s+and\s+(?=[^,]*$)/i) : [text];
  return items
    .map((item) => item.trim().replace(/^[-*]\s+/, ''))
    .filter((item) => item !== '')
    .map((item) => `- ${item}`)
    .join('\n');
}

const SEARCH_PATTERNS: RegExp[] = [
  /^(?:search|find|look)\s+(?:for\s+|up\s+|through\s+)?(?:(?:my|all|the)\s+)?(?:(notes?|pdfs?|files?|documents?|docs|reminders?)\s+)?(?:(?:about|on|for|with|mentioning|containing|that mention|related to|regarding)\s+)?(.+)$/i,
  /^(?:show|list|give)\s+(?:me\s+)?(?:all\s+)?(?:my\s+|the\s+)?(notes?|pdfs?|files?|documents?|docs)\s+(?:about|on|with|mentioning|containing|regarding|related to)\s+(.+)$/i,
  /^(notes?|pdfs?|documents?)\s+(?:about|on|mentioning|regarding)\s+(.+)$/i,
  /^where\s+did\s+i\s+(?:write|put|mention|save|note|jot down|keep)\s+(?:down\s+)?(?:about\s+|that\s+)?()(.+)$/i,
];

function search(text: string): RouteDecision | undefined {
  for (const pattern of SEARCH_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const query = stripEndPunctuation(match[2]!.trim());
    if (query === '') continue;
    const args: Record<string, unknown> = { query };
    const type = documentType(match[1]);
    if (type !== undefined) args.type = type;
    return tool('search', 'search', args);
  }
  return undefined;
}

function documentType(word: string | undefined): string | undefined {
  if (word === undefined || word === '') return undefined;
  const lower = word.toLowerCase();
  if (lower.startsWith('note')) return 'note';
  if (lower.startsWith('pdf') || lower.startsWith('doc')) return 'pdf';
  if (lower.startsWith('reminder')) return 'reminder';
  return undefined;
}

const QUESTION_OPENER =
  /^(?:what|what's|whats|who|who's|whom|whose|when|where|where's|why|how|which|is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|am|tell me|explain|summari[sz]e|describe|list|give me|show me|compare|define|remind me)\b/i;

function question(text: string): RouteDecision | undefined {
  if (!text.endsWith('?') && !QUESTION_OPENER.test(text)) return undefined;
  return tool('question', 'answer', { question: text });
}

function tool(rule: RouteRule, name: ToolName, args: Record<string, unknown>): RouteDecision {
  const check = validateToolCall(name, args);
  if (check.ok) return { kind: 'tool', call: check.call, rule };
  return { kind: 'invalid', error: check.error, rule: 'invalid' };
}

function invalid(message: string, field: string): RouteDecision {
  return { kind: 'invalid', error: { code: 'VALIDATION_ERROR', message, field }, rule: 'invalid' };
}

function stripEndPunctuation(text: string): string {
  return text.replace(/[\s?!.,;:]+$/, '').trim();
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}
