/**
 * What the `@remind` editor extension needs from the rest of the plugin, as a narrow interface
 * so the extension never imports `obsidian` and tests run it against a real EditorView with a
 * fixed clock and zone. Functions, not values: settings and time change while the editor lives.
 */
import { Facet } from '@codemirror/state';
import type { EditorState } from '@codemirror/state';

export interface RemindEditorConfig {
  /** Epoch ms; the plugin passes its Clock. */
  now(): number;
  /** The vault's IANA zone (settings `timezone`). An invalid zone makes every token an error. */
  zone(): string;
  /** A fresh block id (`^r-xxxx` or `r-xxxx`) not in `taken` (the note's ids, without caret). */
  newBlockId(taken: ReadonlySet<string>): string;
  /** Time of day for date-only phrases, `HH:mm`; default `09:00`. */
  defaultTime?: string;
  /**
   * True when the editor's note is a template (core Templates' or Templater's folder): its
   * `@remind` is for the notes made from it and is never normalised (decorations stay).
   */
  isTemplate?(state: EditorState): boolean;
  /**
   * An empty element for a label widget. Obsidian's `createSpan` in the app (the guidelines'
   * way to make elements); a plain DOM span in tests, which run the editor without Obsidian.
   */
  readonly createLabel: () => HTMLElement;
}

/** The configuration of the extension; the last provider wins, none means the extension idles. */
export const remindEditorConfig = Facet.define<RemindEditorConfig, RemindEditorConfig | null>({
  combine: (values) => values[values.length - 1] ?? null,
});
