import { describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../../shared/chat/chat-engine';
import {
  appendTurn,
  conversationFileName,
  conversationTitle,
  formatConversation,
  listConversations,
  newConversation,
  parseConversation,
  type Conversation,
} from '../../../shared/chat/conversation-file';

const ZONE = 'Europe/Berlin';
const AT = Date.parse('2026-11-22T10:30:00+01:00');

const answerTurn: ChatTurn = {
  at: AT,
  user: 'What is the visa fee?',
  assistant: '> The visa fee is $50. [1]\n> Valid 90 days. [2]',
  tool: 'answer',
  result: { success: true, data: { answer: '…', citations: [] } },
  citations: [
    {
      type: 'note',
      path: 'Travel/Visa rules.md',
      title: 'Visa rules',
      heading: 'Fees',
      lines: [3, 4],
      excerpt: 'The visa fee is $50.',
      score: 0.8,
    },
    {
      type: 'pdf',
      path: 'Docs/Embassy letter.pdf',
      title: 'Embassy letter',
      page: 2,
      excerpt: 'Valid 90 days.',
      score: 0.6,
    },
  ],
};

const reminderTurn: ChatTurn = {
  at: AT + 60_000,
  user: 'remind me next Monday at 8 to call the bank',
  assistant: 'Reminder set: "Call the bank", Mon 23 Nov 2026, 08:00.',
  tool: 'create_reminder',
  result: {
    success: true,
    data: { undo: { kind: 'delete_reminder', id: 'r-1', path: 'Reminders/call-the-bank.md' } },
  },
  citations: [],
};

function chat(): Conversation {
  const start = newConversation('6f1c2a', AT, ZONE, answerTurn.user);
  return appendTurn(appendTurn(start, answerTurn), reminderTurn);
}

describe('formatConversation', () => {
  it('writes front matter and one H2 section per message, citations as wiki links', () => {
    expect(formatConversation(chat())).toBe(
      [
        '---',
        'id: 6f1c2a',
        'type: chat',
        'title: What is the visa fee?',
        'created: 2026-11-22T10:30:00+01:00',
        'updated: 2026-11-22T10:31:00+01:00',
        'timezone: Europe/Berlin',
        '---',
        '## You · 2026-11-22 10:30',
        'What is the visa fee?',
        '',
        '## Cairn · 2026-11-22 10:30',
        '> The visa fee is $50. [1]',
        '> Valid 90 days. [2]',
        '',
        'Sources:',
        '1. [[Travel/Visa rules.md#Fees|Visa rules]]',
        '2. [[Docs/Embassy letter.pdf#page=2|Embassy letter]]',
        '',
        '<!-- cairn-tool: answer -->',
        '',
        '## You · 2026-11-22 10:31',
        'remind me next Monday at 8 to call the bank',
        '',
        '## Cairn · 2026-11-22 10:31',
        'Reminder set: "Call the bank", Mon 23 Nov 2026, 08:00.',
        '',
        'Wrote: [[Reminders/call-the-bank.md]]',
        '',
        '<!-- cairn-tool: create_reminder -->',
        '<!-- cairn-undo: {"action":{"kind":"delete_reminder","id":"r-1","path":"Reminders/call-the-bank.md"}} -->',
        '',
      ].join('\n'),
    );
  });

  it('names files by local date and time, never by the words of the message', () => {
    const conversation = newConversation('x', AT, ZONE, 'my bank PIN is 4711, remember it');
    expect(conversationFileName(conversation)).toBe('2026-11-22 1030 Chat.md');
    expect(conversation.title).toBe('my bank PIN is 4711, remember it');
    expect(conversationTitle('  \n' + 'word '.repeat(30))).toBe(
      'word word word word word word word word word word word word…',
    );
    expect(conversationTitle('')).toBe('Chat');
  });
});

describe('undo kept in the file', () => {
  const appendTurnOf = (text: string): ChatTurn => ({
    at: AT,
    user: 'append to Trip: bring --> the <adapter>',
    assistant: 'Appended to "Trip".',
    tool: 'append_to_note',
    result: {
      success: true,
      data: { undo: { kind: 'remove_appended', path: 'Trip.md', text } },
    },
    citations: [],
  });

  it('keeps the undo action and the written hash, even text that would end a comment', () => {
    const text = 'bring --> the <adapter>\nand "quotes"';
    const conversation = appendTurn(
      newConversation('u', AT, ZONE, 'x'),
      appendTurnOf(text),
      '00abcdef123456',
    );
    const file = formatConversation(conversation);
    const comment = file.split('\n').filter((line) => line.startsWith('<!-- cairn-undo'));
    expect(comment).toHaveLength(1);
    expect(comment[0]!.indexOf('-->')).toBe(comment[0]!.length - 3);
    const parsed = parseConversation(file);
    expect(parsed.ok && parsed.conversation.messages[1]!.undo).toEqual({
      action: { kind: 'remove_appended', path: 'Trip.md', text },
      hash: '00abcdef123456',
    });
    expect(parsed).toEqual({ ok: true, conversation });
  });

  it('drops an undo comment that does not read, keeping the rest of the message', () => {
    const good = formatConversation(
      appendTurn(newConversation('u', AT, ZONE, 'x'), appendTurnOf('y')),
    );
    for (const broken of [
      '<!-- cairn-undo: {"action":{"kind":"format_disk"}} -->',
      '<!-- cairn-undo: {not json} -->',
      '<!-- cairn-undo: {"action":{"kind":"delete_note","id":"a","path":"b"},"hash":7} -->',
    ]) {
      const edited = good.replace(/<!-- cairn-undo: .* -->/, broken);
      const parsed = parseConversation(edited);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      const message = parsed.conversation.messages[1]!;
      expect(message.undo).toBeUndefined();
      expect(message.tool).toBe('append_to_note');
      expect(message.wrote).toBe('Trip.md');
      expect(message.text).toBe('Appended to "Trip".');
    }
  });

  it('reads a chat written before undo was kept (no comment): no undo', () => {
    const old = formatConversation(chat()).replace(/\n<!-- cairn-undo: .* -->/, '');
    const parsed = parseConversation(old);
    expect(parsed.ok && parsed.conversation.messages[3]!.undo).toBeUndefined();
    expect(parsed.ok && parsed.conversation.messages[3]!.wrote).toBe('Reminders/call-the-bank.md');
  });
});

describe('parseConversation', () => {
  it('round-trips a conversation (links keep path, heading, page and title)', () => {
    const parsed = parseConversation(formatConversation(chat()));
    expect(parsed).toEqual({ ok: true, conversation: chat() });
    if (parsed.ok) {
      expect(parsed.conversation.messages[1]!.citations).toEqual([
        { path: 'Travel/Visa rules.md', heading: 'Fees', title: 'Visa rules' },
        { path: 'Docs/Embassy letter.pdf', page: 2, title: 'Embassy letter' },
      ]);
      expect(parsed.conversation.messages[3]!.wrote).toBe('Reminders/call-the-bank.md');
    }
  });

  it('round-trips text that looks like its own structure', () => {
    const tricky = [
      '## Cairn · 2026-11-22 10:30',
      '\\## You · escaped already',
      'Sources:',
      '1. [[Fake.md]]',
      '<!-- cairn-tool: search -->',
      '<!-- cairn-undo: {"action":{"kind":"delete_note","id":"a","path":"b"}} -->',
      'Wrote: [[Nope.md]]',
      '# A real heading',
      '',
      'tabs\tand ünïcödé 🙂',
    ].join('\n');
    const conversation = appendTurn(newConversation('t', AT, ZONE, 'x'), {
      at: AT,
      user: tricky,
      assistant: tricky,
      citations: [],
    });
    const parsed = parseConversation(formatConversation(conversation));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.conversation.messages.map((m) => m.text)).toEqual([tricky, tricky]);
      expect(parsed.conversation.messages[1]!.citations).toEqual([]);
      expect(parsed.conversation.messages[1]!.tool).toBeUndefined();
    }
  });

  it('reads a chat edited by hand (CRLF, BOM, extra keys, blank lines)', () => {
    const text =
      '\uFEFF---\r\nid: a\r\ntype: chat\r\ntitle: Hi\r\ncreated: 2026-11-22T10:30:00+01:00\r\n' +
      'updated: 2026-11-22T10:30:00+01:00\r\ntimezone: Europe/Berlin\r\ntags: [cairn]\r\n---\r\n\r\n' +
      '## You · 2026-11-22 10:30\r\nhello\r\n\r\n\r\n## Cairn · 2026-11-22 10:30\r\nHello!\r\n';
    const parsed = parseConversation(text);
    expect(parsed).toMatchObject({
      ok: true,
      conversation: {
        messages: [
          { role: 'user', text: 'hello', at: AT },
          { role: 'assistant', text: 'Hello!' },
        ],
      },
    });
  });

  it.each([
    ['', { message: 'no front matter: the first line must be ---', line: 1 }],
    ['just a note', { line: 1 }],
    ['---\nid: a\n', { message: 'the front matter is not closed with ---' }],
    ['---\nid: [unclosed\n---\n', { line: 2, message: expect.stringMatching(/not valid YAML/) }],
    ['---\n- a list\n---\n', { message: 'the front matter is not a set of keys' }],
    ['---\nid: a\ntype: note\n---\n', { field: 'type', line: 3 }],
    [
      '---\ntype: chat\ntitle: t\ncreated: 2026-11-22T10:30:00Z\nupdated: 2026-11-22T10:30:00Z\ntimezone: UTC\n---\n',
      { field: 'id', message: 'id is missing or not text' },
    ],
    [
      '---\nid: a\ntype: chat\ntitle: t\ncreated: yesterday\nupdated: 2026-11-22T10:30:00Z\ntimezone: UTC\n---\n',
      { field: 'created', line: 5 },
    ],
    [
      '---\nid: a\ntype: chat\ntitle: t\ncreated: 2026-11-22T10:30:00Z\nupdated: 2026-11-22T10:30:00Z\ntimezone: Mars/Base\n---\n',
      { field: 'timezone', line: 7 },
    ],
    [
      '---\nid: a\ntype: chat\ntitle: t\ncreated: 2026-11-22T10:30:00Z\nupdated: 2026-11-22T10:30:00Z\ntimezone: UTC\n---\nstray text\n## You · 2026-11-22 10:30\nhi\n',
      { line: 9, message: expect.stringMatching(/text before the first message heading/) },
    ],
    [
      '---\nid: a\ntype: chat\ntitle: t\ncreated: 2026-11-22T10:30:00Z\nupdated: 2026-11-22T10:30:00Z\ntimezone: UTC\n---\n## You · 2026-02-30 10:30\nhi\n',
      { line: 9, message: expect.stringMatching(/has no day 30/) },
    ],
  ])('reports a bad file instead of throwing: %j', (text, expected) => {
    const parsed = parseConversation(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatchObject(expected);
  });

  it('does not throw on huge or non-text input', () => {
    expect(parseConversation(undefined as unknown as string)).toMatchObject({ ok: false });
    const many = appendTurn(newConversation('big', AT, ZONE, 'x'), {
      at: AT,
      user: 'x'.repeat(200_000),
      assistant: 'line\n'.repeat(20_000).trimEnd(),
      citations: [],
    });
    const parsed = parseConversation(formatConversation(many));
    expect(parsed.ok && parsed.conversation.messages[1]!.text.split('\n')).toHaveLength(20_000);
  });
});

describe('listConversations', () => {
  it('lists chats newest first and reports the files it could not read', () => {
    const older = newConversation('old', AT - 86_400_000, ZONE, 'Older chat');
    const newer = appendTurn(newConversation('new', AT, ZONE, 'Newer chat'), reminderTurn);
    const listing = listConversations([
      { path: 'Cairn/Chats/old.md', text: formatConversation(older) },
      { path: 'Cairn/Chats/broken.md', text: '---\ntype: chat\n' },
      { path: 'Cairn/Chats/new.md', text: formatConversation(newer) },
    ]);
    expect(listing.conversations).toEqual([
      {
        path: 'Cairn/Chats/new.md',
        id: 'new',
        title: 'Newer chat',
        updated: AT + 60_000,
        messages: 2,
      },
      {
        path: 'Cairn/Chats/old.md',
        id: 'old',
        title: 'Older chat',
        updated: AT - 86_400_000,
        messages: 0,
      },
    ]);
    expect(listing.problems).toEqual([
      {
        path: 'Cairn/Chats/broken.md',
        message: 'the front matter is not closed with ---',
        line: 1,
      },
    ]);
  });
});
