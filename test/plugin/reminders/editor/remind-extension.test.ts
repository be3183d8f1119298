import { EditorSelection, EditorState, Transaction } from '@codemirror/state';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  INVALID_CLASS,
  NATURAL_CLASS,
  RELABEL_INTERVAL_MS,
  TOKEN_CLASS,
  WIDGET_CLASS,
  buildRemindDecorations,
  refreshRemindDecorations,
} from '../../../../plugin/reminders/editor/remind-decorations';
import type { RemindEditorConfig } from '../../../../plugin/reminders/editor/remind-editor-config';
import { remindEditorExtension } from '../../../../plugin/reminders/editor/remind-extension';
import { SECOND_TOKEN_MESSAGE } from '../../../../plugin/reminders/editor/remind-line-analysis';
import {
  NORMALISE_USER_EVENT,
  normaliseCursorLine,
} from '../../../../plugin/reminders/editor/remind-normalise';
import { ManualClock } from '../../../fakes/clock';

// Monday 2026-11-23 09:00 in Berlin.
const MONDAY_0900_BERLIN = '2026-11-23T08:00:00Z';

const views: EditorView[] = [];
afterEach(() => {
  for (const view of views.splice(0)) view.destroy();
  document.body.innerHTML = '';
});

function configFor(
  clock: ManualClock,
  zone = 'Europe/Berlin',
): RemindEditorConfig & {
  zoneName: string;
} {
  let counter = 0;
  const config = {
    zoneName: zone,
    now: () => clock.now(),
    zone: () => config.zoneName,
    newBlockId: (taken: ReadonlySet<string>) => {
      let id: string;
      do id = `r-t${(counter++).toString(36).padStart(3, '0')}`;
      while (taken.has(id));
      return `^${id}`;
    },
    createLabel: () => document.createElement('span'),
  };
  return config;
}

function makeView(doc: string, config: RemindEditorConfig, cursor = 0, extra: Extension = []) {
  const parent = document.createElement('div');
  document.body.appendChild(parent);
  const view = new EditorView({
    state: EditorState.create({
      doc,
      selection: EditorSelection.cursor(cursor),
      extensions: [remindEditorExtension(config), extra],
    }),
    parent,
  });
  views.push(view);
  return view;
}

interface FoundDecoration {
  from: number;
  to: number;
  className: string;
  title?: string;
  widgetText?: string;
}

function decorationsOf(view: EditorView): FoundDecoration[] {
  const found: FoundDecoration[] = [];
  buildRemindDecorations(view).between(0, view.state.doc.length, (from, to, value) => {
    const spec = value.spec as {
      class?: string;
      attributes?: Record<string, string>;
      widget?: { toDOM(view: EditorView): HTMLElement };
    };
    if (spec.widget) {
      const dom = spec.widget.toDOM(view);
      found.push({ from, to, className: dom.className, widgetText: dom.textContent ?? '' });
    } else {
      found.push({
        from,
        to,
        className: spec.class ?? '',
        ...(spec.attributes?.title === undefined ? {} : { title: spec.attributes.title }),
      });
    }
  });
  return found;
}

async function settle(): Promise<void> {
  await Promise.resolve();
  await Promise.resolve();
}

describe('@remind decorations', () => {
  it('marks an absolute token and shows the next fire in the vault zone after it', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = '- [ ] Call the bank @remind(2026-11-24 17:00) ^r-7k2p';
    const view = makeView(doc, configFor(clock));
    const from = doc.indexOf('@remind');
    const to = doc.indexOf(')') + 1;
    expect(decorationsOf(view)).toEqual([
      { from, to, className: TOKEN_CLASS },
      { from: to, to, className: WIDGET_CLASS, widgetText: 'tomorrow 17:00' },
    ]);
  });

  it('renders the mark and the widget into the editor DOM', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const view = makeView('Water plants @remind(every monday 09:00)', configFor(clock));
    const mark = view.contentDOM.querySelector(`.${TOKEN_CLASS}`);
    expect(mark?.textContent).toBe('@remind(every monday 09:00)');
    // At 09:00 on a Monday the 09:00 occurrence is due now or next week, never "past".
    const widget = view.contentDOM.querySelector(`.${WIDGET_CLASS}`);
    expect(widget?.textContent).toMatch(/^(Mon 09:00|today 09:00|Mon 30 Nov 09:00)$/);
  });

  it('shows the label in the configured zone, not the process zone', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'x @remind(2026-11-24 17:00 America/New_York)';
    const view = makeView(doc, configFor(clock, 'Asia/Tokyo'));
    const widget = decorationsOf(view).find((found) => found.widgetText !== undefined);
    expect(widget?.widgetText).toBe('tomorrow 17:00');
  });

  it('previews natural language with the absolute form it will become', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'Call mum @remind(tomorrow 5pm)';
    const view = makeView(doc, configFor(clock));
    const found = decorationsOf(view);
    expect(found[0]?.className).toBe(`${TOKEN_CLASS} ${NATURAL_CLASS}`);
    expect(found[1]?.widgetText).toBe('→ 2026-11-24 17:00 (tomorrow 17:00)');
  });

  it('underlines an invalid token with the parser message on hover, and no widget', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'Bad @remind(2026-13-01 09:00)';
    const view = makeView(doc, configFor(clock));
    const found = decorationsOf(view);
    expect(found).toHaveLength(1);
    expect(found[0]?.className).toBe(`${TOKEN_CLASS} ${INVALID_CLASS}`);
    expect(found[0]?.title).toMatch(/^@remind: .*month 13 does not exist/);
    const mark = view.contentDOM.querySelector(`.${INVALID_CLASS}`);
    expect(mark?.getAttribute('title')).toBe(found[0]?.title);
  });

  it('flags an unclosed token and a second token on the same line', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'A @remind(2026-11-24 17:00) and @remind(2026-11-25 09:00)\nB @remind(tomorrow';
    const view = makeView(doc, configFor(clock));
    const found = decorationsOf(view);
    const invalid = found.filter((item) => item.className.includes(INVALID_CLASS));
    expect(invalid.map((item) => item.title)).toEqual([
      `@remind: ${SECOND_TOKEN_MESSAGE}`,
      '@remind: unbalanced parenthesis: "@remind(" is not closed on this line',
    ]);
    expect(found.filter((item) => item.widgetText !== undefined)).toHaveLength(1);
  });

  it('an unknown zone in settings makes tokens errors instead of crashing the editor', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const view = makeView('x @remind(2026-11-24 17:00)', configFor(clock, 'Mars/Olympus'));
    const [mark] = decorationsOf(view);
    expect(mark?.className).toContain(INVALID_CLASS);
    expect(mark?.title).toContain('Mars/Olympus');
  });

  it('marks a checked task as done and leaves code and front matter alone', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = [
      '---',
      'note: "@remind(2026-11-24 17:00)"',
      '---',
      '- [x] Done @remind(2026-11-24 17:00)',
      '```',
      'example @remind(2026-11-24 17:00)',
      '```',
      'inline `@remind(2026-11-24 17:00)` code',
    ].join('\n');
    const view = makeView(doc, configFor(clock));
    const found = decorationsOf(view);
    expect(found).toHaveLength(2);
    expect(found[1]?.widgetText).toBe('done');
    expect(view.state.doc.lineAt(found[0]!.from).number).toBe(4);
  });

  it('relabels when time moves and the view is refreshed', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const view = makeView('x @remind(2026-11-23 10:00)', configFor(clock));
    expect(view.contentDOM.querySelector(`.${WIDGET_CLASS}`)?.textContent).toBe('today 10:00');
    clock.advance(2 * 60 * 60 * 1000);
    refreshRemindDecorations(view);
    expect(view.contentDOM.querySelector(`.${WIDGET_CLASS}`)?.textContent).toBe('past');
  });

  it('relabels every minute on its own and stops when the editor is destroyed', () => {
    vi.useFakeTimers();
    try {
      const clock = ManualClock.at(MONDAY_0900_BERLIN);
      const view = makeView('x @remind(2026-11-23 09:30)', configFor(clock));
      const label = () => view.contentDOM.querySelector(`.${WIDGET_CLASS}`)?.textContent;
      const before = label();
      expect(before).toBe('today 09:30');
      clock.advance(60 * 60 * 1000);
      vi.advanceTimersByTime(RELABEL_INTERVAL_MS);
      expect(label()).toBe('past');
      view.destroy();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('decorates only the viewport of a 10,000-line note', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const lines = Array.from(
      { length: 10_000 },
      (_, index) => `- [ ] task ${index} @remind(2026-12-01 09:00) ^r-${index.toString(36)}`,
    );
    const view = makeView(lines.join('\n'), configFor(clock));
    const marks = decorationsOf(view).filter((item) => item.widgetText === undefined);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.length).toBeLessThan(1_000);
    const { from, to } = view.viewport;
    for (const mark of marks) {
      expect(mark.from).toBeGreaterThanOrEqual(from);
      expect(mark.to).toBeLessThanOrEqual(to);
    }
  });

  it('does nothing without a configuration', () => {
    const parent = document.createElement('div');
    const view = new EditorView({ state: EditorState.create({ doc: 'x @remind(bad' }), parent });
    views.push(view);
    expect(buildRemindDecorations(view).size).toBe(0);
  });
});

describe('normalisation when the cursor leaves the line', () => {
  const typed = 'Call mum @remind(tomorrow 5pm)\nnext line';

  it('does not rewrite while the cursor stays on the line', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const view = makeView(typed, configFor(clock), 5);
    view.dispatch({ selection: EditorSelection.cursor(10) });
    view.dispatch({ changes: { from: 0, insert: 'Do: ' } });
    await settle();
    expect(view.state.doc.line(1).text).toBe(`Do: Call mum @remind(tomorrow 5pm)`);
  });

  it('rewrites natural language to the absolute form and appends a block id in one transaction', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const transactions: Transaction[] = [];
    const spy = EditorState.transactionExtender.of((tr) => {
      if (tr.docChanged) transactions.push(tr);
      return null;
    });
    const view = makeView(typed, configFor(clock), 5, spy);
    const before = view.state.doc;
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.line(2).from) });
    await settle();
    expect(view.state.doc.line(1).text).toBe('Call mum @remind(2026-11-24 17:00) ^r-t000');
    expect(view.state.doc.line(2).text).toBe('next line');
    expect(transactions).toHaveLength(1);
    const [normalise] = transactions;
    expect(normalise!.isUserEvent(NORMALISE_USER_EVENT)).toBe(true);
    expect(normalise!.annotation(Transaction.addToHistory)).toBe(true);
    // What one undo does: invert that single transaction's changes.
    const undone = normalise!.changes.invert(before).apply(view.state.doc);
    expect(undone.toString()).toBe(typed);
  });

  it('follows the line when the user leaves it by pressing Enter', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'Call mum @remind(in 2 hours)';
    const view = makeView(doc, configFor(clock), doc.length);
    view.dispatch({
      changes: { from: doc.length, insert: '\n' },
      selection: EditorSelection.cursor(doc.length + 1),
      userEvent: 'input',
    });
    await settle();
    expect(view.state.doc.toString()).toBe('Call mum @remind(2026-11-23 11:00) ^r-t000\n');
    expect(view.state.selection.main.head).toBe(view.state.doc.length);
  });

  it('only appends a block id to an absolute token, and leaves a line with one alone', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = 'a @remind(2026-11-24 17:00)\nb @remind(2026-11-24 17:00) ^r-t000\nc';
    const view = makeView(doc, configFor(clock), 0);
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.line(2).from) });
    await settle();
    // The fresh id must not repeat the one already in the note.
    expect(view.state.doc.line(1).text).toBe('a @remind(2026-11-24 17:00) ^r-t001');
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.line(3).from) });
    await settle();
    expect(view.state.doc.line(2).text).toBe('b @remind(2026-11-24 17:00) ^r-t000');
  });

  it('leaves unresolvable and invalid text exactly as typed', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc =
      'a @remind(yesterday)\nb @remind(tomorrow 5pm call mum)\nc @remind(2026-02-30 09:00)\nd';
    const view = makeView(doc, configFor(clock), 0);
    for (const line of [2, 3, 4]) {
      view.dispatch({ selection: EditorSelection.cursor(view.state.doc.line(line).from) });
      await settle();
    }
    expect(view.state.doc.toString()).toBe(doc);
  });

  it('does not touch tokens inside fenced code', async () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const doc = '```\nx @remind(tomorrow 5pm)\n```\n';
    const view = makeView(doc, configFor(clock), 6);
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    await settle();
    expect(view.state.doc.toString()).toBe(doc);
  });

  it('normalises the cursor line on demand (the command)', () => {
    const clock = ManualClock.at(MONDAY_0900_BERLIN);
    const view = makeView(typed, configFor(clock), 3);
    expect(normaliseCursorLine(view)).toBe(true);
    expect(view.state.doc.line(1).text).toBe('Call mum @remind(2026-11-24 17:00) ^r-t000');
    expect(normaliseCursorLine(view)).toBe(false);
  });
});
