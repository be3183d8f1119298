/**
 * Normalisation in the editor (docs/vault-format.md): when the cursor leaves a line whose `@remind(...)`
 * holds natural language (or a schedulable token without a block id), the line is rewritten to
 * the absolute form with ` ^r-xxxx` appended, as ONE transaction of its own with the user event
 * `input.cairn-normalise`. That event is not one CodeMirror's history joins with typing, and a
 * cursor move separates history events anyway, so a single undo restores the line as typed.
 * (`isolateHistory` lives in `@codemirror/commands`, which Obsidian provides at run time but this
 * repo does not install; the distinct user event gives the same isolation.)
 *
 * Nothing happens while the cursor stays on the line, and a line that cannot be resolved stays
 * exactly as typed (the decoration shows why). Nor in a template (`config.isTemplate`): its
 * token is meant for the notes made from it.
 */
import { Transaction } from '@codemirror/state';
import type { EditorState } from '@codemirror/state';
import type { ChangeSpec, Extension, Text, TransactionSpec } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import type { ViewUpdate } from '@codemirror/view';
import { findBlockIds, normaliseRemindLine, REMIND_OPEN } from '../../../shared/reminders';
import { bodyStartIndex, fencedCodeLines } from '../../../shared/markdown/code-regions';
import { remindEditorConfig } from './remind-editor-config';
import type { RemindEditorConfig } from './remind-editor-config';

export const NORMALISE_USER_EVENT = 'input.cairn-normalise';

/** The normalisation of line `lineNumber`, as a transaction spec, or null when nothing changes. */
export function normaliseLineSpec(
  state: EditorState,
  lineNumber: number,
  config: RemindEditorConfig,
): TransactionSpec | null {
  if (lineNumber < 1 || lineNumber > state.doc.lines) return null;
  const line = state.doc.line(lineNumber);
  if (!line.text.includes(REMIND_OPEN)) return null;
  if (isCodeOrFrontMatter(state.doc, lineNumber)) return null;
  if (config.isTemplate?.(state) === true) return null;
  let result;
  try {
    result = normaliseRemindLine(line.text, {
      now: config.now(),
      zone: config.zone(),
      newBlockId: () => config.newBlockId(findBlockIds(state.doc.toString())),
      ...(config.defaultTime === undefined ? {} : { defaultTime: config.defaultTime }),
    });
  } catch {
    return null;
  }
  if (result.edits.length === 0) return null;
  const changes: ChangeSpec[] = result.edits.map((edit) => ({
    from: line.from + edit.from,
    to: line.from + edit.to,
    insert: edit.insert,
  }));
  return {
    changes,
    annotations: [
      Transaction.userEvent.of(NORMALISE_USER_EVENT),
      Transaction.addToHistory.of(true),
    ],
  };
}

function isCodeOrFrontMatter(doc: Text, lineNumber: number): boolean {
  const lines: string[] = [];
  for (let number = 1; number <= lineNumber; number++) lines.push(doc.line(number).text);
  const index = lineNumber - 1;
  return index < bodyStartIndex(lines) || fencedCodeLines(lines)[index] === true;
}

/** Line numbers (in the new state) the main cursor left with this update, if any. */
function leftLine(update: ViewUpdate): number | null {
  if (!update.selectionSet && !update.docChanged) return null;
  if (update.transactions.some((tr) => tr.isUserEvent(NORMALISE_USER_EVENT))) return null;
  const before = update.startState.selection.main.head;
  const beforeLine = update.startState.doc.lineAt(before).number;
  // Follow the old line through the edit: typing Enter moves it down by nothing, deleting
  // lines above moves it up.
  const mapped = update.changes.mapPos(update.startState.doc.line(beforeLine).from, 1);
  const newLine = update.state.doc.lineAt(mapped).number;
  const cursorLine = update.state.doc.lineAt(update.state.selection.main.head).number;
  if (newLine === cursorLine) return null;
  return newLine;
}

function normaliseOnLeave(update: ViewUpdate): void {
  const config = update.state.facet(remindEditorConfig);
  if (config === null) return;
  const lineNumber = leftLine(update);
  if (lineNumber === null) return;
  const { view } = update;
  // A view cannot dispatch while it is updating; the microtask runs right after, before the
  // user can type again, and re-checks against whatever the state is by then.
  queueMicrotask(() => {
    const state = view.state;
    if (lineNumber > state.doc.lines) return;
    const cursorLine = state.doc.lineAt(state.selection.main.head).number;
    if (cursorLine === lineNumber) return;
    const spec = normaliseLineSpec(state, lineNumber, config);
    if (spec !== null) view.dispatch(spec);
  });
}

export const remindNormaliseOnLeave: Extension = EditorView.updateListener.of(normaliseOnLeave);

/** Normalises the cursor's line now (the "Add reminder to this line" command); true if changed. */
export function normaliseCursorLine(view: EditorView): boolean {
  const config = view.state.facet(remindEditorConfig);
  if (config === null) return false;
  const lineNumber = view.state.doc.lineAt(view.state.selection.main.head).number;
  const spec = normaliseLineSpec(view.state, lineNumber, config);
  if (spec === null) return false;
  view.dispatch(spec);
  return true;
}
