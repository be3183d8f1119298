/**
 * What the editor shows for one line: the `@remind(...)` tokens on it and, for each, either a
 * preview label (next fire, or the absolute form natural language becomes) or an error message.
 * Pure over the line's text so decorations, commands and tests agree.
 */
import { findRemindTokensInLine, previewRemindText, taskStateOf } from '../../../shared/reminders';
import type { RemindPreview } from '../../../shared/reminders';

export interface LineTokenView {
  /** Line-relative offsets of the whole token (`@` to `)`). */
  from: number;
  to: number;
  /** `scheduled` / `natural` show a label; `invalid` shows `message` as an error. */
  kind: 'scheduled' | 'natural' | 'invalid';
  label: string;
  message?: string;
}

export interface AnalyseLineOptions {
  now: number;
  zone: string;
  defaultTime?: string;
}

export const SECOND_TOKEN_MESSAGE =
  'only one @remind per line: this second token is ignored (move it to its own line)';

export function analyseRemindLine(line: string, options: AnalyseLineOptions): LineTokenView[] {
  const tokens = findRemindTokensInLine(line);
  if (tokens.length === 0) return [];
  const taskState = taskStateOf(line);
  return tokens.map((token, index): LineTokenView => {
    if (index > 0) return invalid(token, SECOND_TOKEN_MESSAGE);
    if (!token.closed) {
      return invalid(token, 'unbalanced parenthesis: "@remind(" is not closed on this line');
    }
    let preview: RemindPreview;
    try {
      preview = previewRemindText(token.inner, {
        now: options.now,
        zone: options.zone,
        taskState,
        ...(options.defaultTime === undefined ? {} : { defaultTime: options.defaultTime }),
      });
    } catch (error) {
      // previewRemindText promises not to throw; a bad zone from settings must still not
      // take the editor down with it.
      preview = { kind: 'invalid', reason: error instanceof Error ? error.message : String(error) };
    }
    if (preview.kind === 'invalid') return invalid(token, preview.reason);
    return { from: token.from, to: token.to, kind: preview.kind, label: preview.label };
  });
}

function invalid(token: { from: number; to: number }, reason: string): LineTokenView {
  return {
    from: token.from,
    to: token.to,
    kind: 'invalid',
    label: '',
    message: `@remind: ${reason}`,
  };
}
