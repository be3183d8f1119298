import { App, MarkdownView } from 'obsidian-test-mocks/obsidian';
import type { TFile } from 'obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerActions } from '../../../../plugin/chat/obsidian/chat-services';

beforeAll(() => setup());
afterAll(() => teardown());

/** An app with `Note.md` open in the main area, its editor holding `typed` (unsaved). */
function openNote(onDisk: string, typed: string) {
  const app = App.createConfigured__({ files: { 'Note.md': onDisk } });
  // The workspace's newest leaf, as the last note the user was in.
  const leaf = app.workspace.getLeaf();
  const view = MarkdownView.create2__(leaf);
  view.file = app.vault.getFileByPath('Note.md') as unknown as TFile as never;
  leaf.view = view as never;
  view.editor.setValue(typed);
  return { app, view };
}

describe('chat answer "Append"', () => {
  it('appends through the open note’s editor, keeping what was typed and not saved', async () => {
    const { app, view } = openNote('Old text\n', 'Old text\nTyped, not saved yet\n\n\n');
    const process = vi.spyOn(app.vault, 'process');
    const modify = vi.spyOn(app.vault, 'modify');
    answerActions(app.asOriginalType__() as never).appendToNote('The visa fee is €80 [1].');
    expect(view.editor.getValue()).toBe(
      'Old text\nTyped, not saved yet\n\nThe visa fee is €80 [1].\n',
    );
    expect(process).not.toHaveBeenCalled();
    expect(modify).not.toHaveBeenCalled();
    // As one edit: one undo takes the answer out again.
    view.editor.undo();
    expect(view.editor.getValue()).toBe('Old text\nTyped, not saved yet\n\n\n');
  });

  it('writes an empty note without leading blank lines', () => {
    const { app, view } = openNote('', '');
    answerActions(app.asOriginalType__() as never).appendToNote('Answer');
    expect(view.editor.getValue()).toBe('Answer\n');
  });
});
