import { describe, expect, it } from 'vitest';
import { plainInline } from '../../../shared/markdown/plain-inline';
import { findInlineReminders } from '../../../shared/reminders/inline-reminders';

describe('plainInline', () => {
  it.each([
    ['Read *A Pattern Language* again', 'Read A Pattern Language again'],
    ['Call **Anna** about __tax__', 'Call Anna about tax'],
    ['Run `npm ci` ~~later~~ ==now==', 'Run npm ci later now'],
    ['See [[Projects/Roof|the roof]] and [[Budget]]', 'See the roof and Budget'],
    ['Back to [[Note#Heading]]', 'Back to Note > Heading'],
    ['Open [the docs](https://example.org/a_(b)) now', 'Open the docs now'],
    ['_italic_ word', 'italic word'],
  ])('%j reads as %j', (markdown, plain) => {
    expect(plainInline(markdown)).toBe(plain);
  });

  it.each([
    'Fix snake_case and file_name.md',
    '2 * 3 * 4',
    'a*b*c',
    '**',
    'Pay 5 * 2 €',
    'Plain words stay',
  ])('leaves %j as written', (text) => {
    expect(plainInline(text)).toBe(text);
  });
});

describe("a reminder's title", () => {
  it('is the line as a person reads it, not its Markdown', () => {
    const text =
      '- [ ] Read *A Pattern Language* with [[Anna|my sister]] @remind(2027-01-10 09:00) ^r-a1b2\n';
    const [entry] = findInlineReminders(text, { path: 'Books.md', defaultZone: 'UTC' }).reminders;
    expect(entry?.title).toBe('Read A Pattern Language with my sister');
  });
});
