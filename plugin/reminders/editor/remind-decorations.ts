/**
 * Decorations for `@remind(...)` tokens in live preview and source mode: a mark on the token
 * (`cairn-remind-token`, plus `cairn-remind-invalid` with the parser's message as `title` and
 * `aria-label` when it is wrong) and a small widget after it with the next fire time in the
 * vault's zone ("Mon 09:00") or what natural language becomes ("→ 2026-11-24 17:00 (…)").
 *
 * Only the visible ranges are decorated, recomputed on document, viewport or configuration
 * changes, so a 10,000-line note costs what is on screen. Lines in fenced code and front matter
 * are examples, not reminders, and stay plain.
 */
import { RangeSetBuilder, StateEffect } from '@codemirror/state';
import type { Text } from '@codemirror/state';
import { Decoration, ViewPlugin, WidgetType } from '@codemirror/view';
import type { DecorationSet, EditorView, PluginValue, ViewUpdate } from '@codemirror/view';
import { bodyStartIndex, fencedCodeLines } from '../../../shared/markdown/code-regions';
import { remindEditorConfig } from './remind-editor-config';
import { analyseRemindLine } from './remind-line-analysis';
import type { LineTokenView } from './remind-line-analysis';

export const TOKEN_CLASS = 'cairn-remind-token';
export const INVALID_CLASS = 'cairn-remind-invalid';
export const NATURAL_CLASS = 'cairn-remind-natural';
export const WIDGET_CLASS = 'cairn-remind-widget';

/** Asks the decorations to recompute without a document change (time moved, settings changed). */
export const refreshRemindEffect = StateEffect.define<null>();

class RemindLabelWidget extends WidgetType {
  constructor(
    readonly label: string,
    readonly natural: boolean,
    private readonly createLabel: () => HTMLElement,
  ) {
    super();
  }

  override eq(other: RemindLabelWidget): boolean {
    return other.label === this.label && other.natural === this.natural;
  }

  toDOM(): HTMLElement {
    const span = this.createLabel();
    span.className = this.natural ? `${WIDGET_CLASS} ${NATURAL_CLASS}` : WIDGET_CLASS;
    span.textContent = this.label;
    span.setAttribute('aria-label', `Reminder: ${this.label}`);
    return span;
  }

  override ignoreEvent(): boolean {
    return false;
  }
}

function markFor(token: LineTokenView): Decoration {
  if (token.kind === 'invalid') {
    const message = token.message ?? '@remind: invalid';
    return Decoration.mark({
      class: `${TOKEN_CLASS} ${INVALID_CLASS}`,
      attributes: { title: message, 'aria-label': message },
    });
  }
  return Decoration.mark({
    class: token.kind === 'natural' ? `${TOKEN_CLASS} ${NATURAL_CLASS}` : TOKEN_CLASS,
  });
}

/** 1-based numbers of the lines up to `lastLine` that are fenced code or front matter. */
function nonBodyLines(doc: Text, lastLine: number): Set<number> {
  const lines: string[] = [];
  for (let number = 1; number <= lastLine; number++) lines.push(doc.line(number).text);
  const skipped = new Set<number>();
  const bodyStart = bodyStartIndex(lines);
  for (let index = 0; index < bodyStart; index++) skipped.add(index + 1);
  fencedCodeLines(lines).forEach((inCode, index) => {
    if (inCode) skipped.add(index + 1);
  });
  return skipped;
}

export function buildRemindDecorations(view: EditorView): DecorationSet {
  const config = view.state.facet(remindEditorConfig);
  const builder = new RangeSetBuilder<Decoration>();
  if (config === null) return builder.finish();
  const { doc } = view.state;
  const ranges = view.visibleRanges;
  const last = ranges[ranges.length - 1];
  if (last === undefined) return builder.finish();
  // Fences and front matter depend on everything above, but only lines that mention a fence
  // cost anything; skip the scan entirely for the common note without `@remind` on screen.
  let skipped: Set<number> | null = null;
  const now = config.now();
  const zone = config.zone();
  let previousLine = 0;
  for (const { from, to } of ranges) {
    let position = from;
    while (position <= to) {
      const line = doc.lineAt(position);
      position = line.to + 1;
      if (line.number <= previousLine) continue;
      previousLine = line.number;
      if (!line.text.includes('@remind(')) continue;
      skipped ??= nonBodyLines(doc, doc.lineAt(last.to).number);
      if (skipped.has(line.number)) continue;
      const tokens = analyseRemindLine(line.text, {
        now,
        zone,
        ...(config.defaultTime === undefined ? {} : { defaultTime: config.defaultTime }),
      });
      for (const token of tokens) {
        builder.add(line.from + token.from, line.from + token.to, markFor(token));
        if (token.kind !== 'invalid') {
          builder.add(
            line.from + token.to,
            line.from + token.to,
            Decoration.widget({
              widget: new RemindLabelWidget(
                token.label,
                token.kind === 'natural',
                config.createLabel,
              ),
              side: 1,
            }),
          );
        }
      }
    }
  }
  return builder.finish();
}

/** Labels such as "in 5 min" or "today 17:00" age; they are redrawn this often. */
export const RELABEL_INTERVAL_MS = 60_000;

class RemindDecorationsPlugin implements PluginValue {
  decorations: DecorationSet;
  private readonly relabelTimer: number | null;
  private readonly windowRef: Window | null;

  constructor(private readonly view: EditorView) {
    this.decorations = buildRemindDecorations(view);
    // The editor's own window (Obsidian has pop-out windows); cleared in destroy(), which
    // CodeMirror calls when the editor closes or the plugin's extension is removed on unload.
    this.windowRef = view.dom.ownerDocument.defaultView;
    this.relabelTimer =
      this.windowRef?.setInterval(() => {
        if (this.decorations.size > 0) refreshRemindDecorations(this.view);
      }, RELABEL_INTERVAL_MS) ?? null;
  }

  destroy(): void {
    if (this.relabelTimer !== null) this.windowRef?.clearInterval(this.relabelTimer);
  }

  update(update: ViewUpdate): void {
    if (
      update.docChanged ||
      update.viewportChanged ||
      update.transactions.some((tr) =>
        tr.effects.some((effect) => effect.is(refreshRemindEffect)),
      ) ||
      update.startState.facet(remindEditorConfig) !== update.state.facet(remindEditorConfig)
    ) {
      this.decorations = buildRemindDecorations(update.view);
    }
  }
}

export const remindDecorations = ViewPlugin.fromClass(RemindDecorationsPlugin, {
  decorations: (plugin) => plugin.decorations,
});

/** Re-renders labels ("today 17:00" becomes "past") when time moves. */
export function refreshRemindDecorations(view: EditorView): void {
  view.dispatch({ effects: refreshRemindEffect.of(null) });
}
