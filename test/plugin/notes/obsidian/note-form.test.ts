import { describe, expect, it } from 'vitest';
import { VaultNoteWriter } from '../../../../plugin/notes/vault-note-writer';
import {
  ASK_SELECTION_MAX_CHARS,
  NOTE_TITLE_MAX_CHARS,
  askPrefill,
  checkNoteForm,
} from '../../../../plugin/notes/obsidian/note-form';
import { ManualClock } from '../../../fakes/clock';
import { countingBytes, MemoryVaultFiles } from '../../chat/memory-vault-files';

describe('checkNoteForm', () => {
  it('trims the title, reads tags with or without # split by spaces or commas, keeps the body', () => {
    expect(
      checkNoteForm({
        title: '  Visa rules ',
        tags: '#visa, travel  Travel nested/tag',
        body: 'a\r\nb',
      }),
    ).toEqual({
      ok: true,
      note: {
        title: 'Visa rules',
        tags: ['visa', 'travel', 'nested/tag'],
        body: 'a\nb',
        source: 'command',
      },
    });
  });

  it('the note it checks is written with source: command, not chat', async () => {
    const checked = checkNoteForm({ title: 'Groceries', tags: '', body: '- milk' });
    if (!checked.ok) throw new Error(checked.message);
    const files = new MemoryVaultFiles();
    const writer = new VaultNoteWriter({
      files,
      clock: ManualClock.at('2026-11-22T09:30:00Z'),
      zone: () => 'Europe/Berlin',
      notesFolder: () => 'Cairn/Notes',
      randomBytes: countingBytes(),
    });
    const created = await writer.create(checked.note);
    const text = files.files.get(created.path) ?? '';
    expect(text).toMatch(/\nsource: command\n/);
    expect(text).not.toContain('source: chat');
  });

  it.each([
    [{ title: '   ', tags: '', body: '' }, 'title', 'Title: give the note a title.'],
    [
      { title: 'a\nb', tags: '', body: '' },
      'title',
      'Title: no line breaks or control characters.',
    ],
    [
      { title: 'bell\u0007', tags: '', body: '' },
      'title',
      'Title: no line breaks or control characters.',
    ],
    [
      { title: 'x'.repeat(NOTE_TITLE_MAX_CHARS + 1), tags: '', body: '' },
      'title',
      `Title: at most ${NOTE_TITLE_MAX_CHARS} characters (this one has ${NOTE_TITLE_MAX_CHARS + 1}).`,
    ],
    [
      { title: 'T', tags: 'ok bad!tag', body: '' },
      'tags',
      'Tags: "bad!tag" is not a tag (letters, digits, _ - / only, not only digits).',
    ],
    [
      { title: 'T', tags: '#2026', body: '' },
      'tags',
      'Tags: "#2026" is not a tag (letters, digits, _ - / only, not only digits).',
    ],
    [{ title: 'T', tags: '', body: 'nul\u0000' }, 'body', 'Body: contains control characters.'],
  ] as const)('refuses %j naming the field', (input, field, message) => {
    expect(checkNoteForm(input)).toEqual({ ok: false, field, message });
  });

  it('accepts non-Latin tags and tabs in the body', () => {
    const checked = checkNoteForm({ title: 'Reise', tags: 'überblick 旅行', body: '\tindented' });
    expect(checked).toMatchObject({
      ok: true,
      note: { tags: ['überblick', '旅行'], body: '\tindented' },
    });
  });
});

describe('askPrefill', () => {
  it('names the note when nothing is selected', () => {
    expect(askPrefill({ title: 'Visa rules summary' }, '  ')).toBe(
      'About the note "Visa rules summary": ',
    );
  });

  it('quotes a multi-line selection', () => {
    expect(askPrefill({ title: 'Visa' }, 'fee $50\nten days')).toBe(
      'About this passage of "Visa":\n> fee $50\n> ten days\n\n',
    );
  });

  it('shortens a huge selection', () => {
    const prefill = askPrefill({ title: 'Long' }, 'word '.repeat(1000));
    expect(prefill.length).toBeLessThan(ASK_SELECTION_MAX_CHARS + 60);
    expect(prefill).toContain('…');
  });
});
