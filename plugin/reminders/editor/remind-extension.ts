/**
 * The `@remind` editor extension: decorations + normalisation when the cursor leaves a line.
 * main.ts registers it with `registerEditorExtension(remindEditorExtension(config))`.
 */
import type { Extension } from '@codemirror/state';
import { remindDecorations } from './remind-decorations';
import { remindEditorConfig } from './remind-editor-config';
import type { RemindEditorConfig } from './remind-editor-config';
import { remindNormaliseOnLeave } from './remind-normalise';

export function remindEditorExtension(config: RemindEditorConfig): Extension {
  return [remindEditorConfig.of(config), remindDecorations, remindNormaliseOnLeave];
}
