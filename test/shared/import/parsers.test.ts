import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportParseError, parseBookmarks } from '../../../shared/import/bookmarks';
import { parseKindleClippings } from '../../../shared/import/kindle-clippings';

const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../fixtures/import', name), 'utf8');

describe('parseBookmarks (Netscape bookmark files as Firefox and Chrome export them)', () => {
  it('reads Firefox: nested folders, entities, TAGS and <DD> descriptions', () => {
    const marks = parseBookmarks('bookmarks.html', fixture('bookmarks-firefox.html'));
    expect(marks.map((m) => [m.title, m.folders])).toEqual([
      ['Get Help', ['Mozilla Firefox']],
      ['About Us', ['Mozilla Firefox']],
      ["The Food Lab's Complete Guide to Pan-Seared Steaks", ['Recipes & Cooking']],
      ['Classic Sandwich Bread Recipe | King Arthur Baking', ['Recipes & Cooking', 'Bread']],
      [
        '<dl>: The Description List element - HTML: HyperText Markup Language | MDN',
        ['Bookmarks Toolbar'],
      ],
    ]);
    const steak = marks[2];
    expect(steak?.tags).toEqual(['steak', 'technique']);
    expect(steak?.description).toBe('Reverse sear for thick cuts; dry brine overnight.');
    expect(steak?.added).toBe(1701234600_000);
    expect(steak?.line).toBe(19);
  });

  it('reads Chrome: the bookmarks bar, a subfolder and a top-level bookmark', () => {
    const marks = parseBookmarks('chrome.html', fixture('bookmarks-chrome.html'));
    expect(marks.map((m) => [m.url, m.folders])).toEqual([
      ['https://news.ycombinator.com/', ['Bookmarks bar']],
      ['https://github.com/obsidianmd/obsidian-releases', ['Bookmarks bar', 'Work']],
      ['https://en.wikipedia.org/wiki/Cairn', []],
    ]);
  });

  it('names the file and line of what it cannot read', () => {
    const broken = fixture('bookmarks-chrome.html').replace(
      '<A HREF="https://en.wikipedia.org/wiki/Cairn"',
      '<A NAME="x"',
    );
    expect(() => parseBookmarks('chrome.html', broken)).toThrow(
      new ImportParseError('chrome.html', 17, 'bookmark without HREF'),
    );
    expect(() => parseBookmarks('notes.html', '<html><body>hi</body></html>')).toThrow(
      /^notes\.html:1: not a browser bookmark export/,
    );
    const unclosed = fixture('bookmarks-chrome.html').replace(/<\/DL><p>\n$/, '');
    expect(() => parseBookmarks('chrome.html', unclosed)).toThrow(/not closed/);
  });
});

describe('parseKindleClippings (My Clippings.txt with BOMs and CRLF)', () => {
  it('groups highlights, notes and bookmarks per book with pages, locations and dates', () => {
    const books = parseKindleClippings('My Clippings.txt', fixture('My Clippings.txt'));
    expect(books.map((b) => [b.title, b.author, b.clippings.length])).toEqual([
      ['The Pragmatic Programmer', 'David Thomas;Andrew Hunt', 3],
      ['Thinking, Fast and Slow', 'Kahneman, Daniel', 2],
    ]);
    const [first, note, later] = books[0]?.clippings ?? [];
    expect(first).toEqual({
      kind: 'highlight',
      page: '42',
      location: '617-619',
      added: 'Tuesday, 12 March 2024 21:04:11',
      text: 'Don’t live with broken windows.',
      line: 1,
    });
    expect(note?.kind).toBe('note');
    expect(later?.page).toBe('58');
    const kahneman = books[1]?.clippings ?? [];
    expect(kahneman[0]?.text).toBe(
      'A reliable way to make people believe in falsehoods is frequent repetition,\nbecause familiarity is not easily distinguished from truth.',
    );
    expect(kahneman[0]?.page).toBeUndefined();
    expect(kahneman[1]).toMatchObject({ kind: 'bookmark', location: '1500', text: '' });
  });

  it('names the line of an entry it cannot read', () => {
    const broken = fixture('My Clippings.txt').replace(
      '- Your Note on page 42',
      'Your Note on page 42',
    );
    expect(() => parseKindleClippings('My Clippings.txt', broken)).toThrow(
      /^My Clippings\.txt:7: expected "- Your Highlight\/Note\/Bookmark …"/,
    );
    const cut = fixture('My Clippings.txt').replace(/==========\r\n$/, '');
    expect(() => parseKindleClippings('My Clippings.txt', cut)).toThrow(/not ended by a/);
  });
});
