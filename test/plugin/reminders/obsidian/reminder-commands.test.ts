import type { Editor as EditorOriginal, PluginManifest } from 'obsidian';
import { App, MarkdownView, Plugin, WorkspaceLeaf } from 'obsidian-test-mocks/obsidian';
import type { ButtonComponent, TextComponent } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerReminderCommands } from '../../../../plugin/reminders/obsidian/reminder-commands';
import { ReminderTimeModal } from '../../../../plugin/reminders/obsidian/reminder-modal';
import { defaultSettings } from '../../../../shared/settings/cairn-settings';
import { ManualClock } from '../../../fakes/clock';

beforeAll(() => setup());
afterAll(() => teardown());
afterEach(() => vi.restoreAllMocks());

const manifest: PluginManifest = {
  id: 'cairn',
  name: 'Cairn',
  version: '0.1.0',
  minAppVersion: '1.8.7',
  description: 'test',
  author: 'test',
};

class TestPlugin extends Plugin {}

/** The modal's field and button as the mocks hold them (they do not wire DOM events). */
function controls(modal: ReminderTimeModal) {
  const held = modal as unknown as { whenField: TextComponent; addButton: ButtonComponent };
  return {
    input: held.whenField.inputEl,
    type: (value: string) => held.whenField.setValue(value),
    add: () => held.addButton.simulateClick__(),
    addDisabled: () => held.addButton.disabled,
    preview: () => modal.contentEl.querySelector('.cairn-reminder-preview')?.textContent,
  };
}

/** The reminder commands as registered, and an editor on `text` with the cursor on line 0. */
function commandsOn(text: string) {
  const app = App.createConfigured__({ files: {} });
  const plugin = new TestPlugin(app, manifest);
  registerReminderCommands({
    plugin: plugin.asOriginalType__() as never,
    // Monday 2026-11-23 09:00 in Berlin.
    clock: ManualClock.at('2026-11-23T08:00:00Z'),
    settings: () => defaultSettings('Europe/Berlin'),
    showUpcoming: () => undefined,
  });
  const view = MarkdownView.create2__(WorkspaceLeaf.create2__(app));
  view.editor.setValue(text);
  view.editor.setCursor({ line: 0, ch: 0 });
  const editor = view.editor.asOriginalType__() as EditorOriginal;
  const run = (id: string) =>
    plugin.commands__.get(id)!.editorCallback!(editor, view.asOriginalType7__());
  const offered = (id: string) =>
    plugin.commands__.get(id)!.editorCheckCallback!(true, editor, view.asOriginalType7__());
  return { editor, run, offered };
}

describe('Add reminder to this line', () => {
  it('asks when instead of writing tomorrow 09:00, and writes the time typed', () => {
    const opened: ReminderTimeModal[] = [];
    vi.spyOn(ReminderTimeModal.prototype, 'open').mockImplementation(function (
      this: ReminderTimeModal,
    ) {
      opened.push(this);
      this.onOpen();
    });
    const { editor, run } = commandsOn('- [ ] Call the bank\nnext');
    run('add-reminder-to-line');
    expect(editor.getValue()).toBe('- [ ] Call the bank\nnext');
    expect(opened).toHaveLength(1);
    const modal = controls(opened[0]!);
    expect(modal.input.value).toBe('tomorrow 09:00');
    modal.type('wednesday 17:30');
    expect(modal.preview()).toContain('17:30');
    modal.add();
    expect(editor.getValue()).toMatch(
      /^- \[ \] Call the bank @remind\(2026-11-25 17:30\) \^r-[a-z0-9]+\nnext$/,
    );
  });

  it('keeps Add disabled with the reason while the time does not read', () => {
    const opened: ReminderTimeModal[] = [];
    vi.spyOn(ReminderTimeModal.prototype, 'open').mockImplementation(function (
      this: ReminderTimeModal,
    ) {
      opened.push(this);
      this.onOpen();
    });
    const { editor, run } = commandsOn('Water plants');
    run('add-reminder-to-line');
    const modal = controls(opened[0]!);
    modal.type('someday');
    expect(modal.addDisabled()).toBe(true);
    expect(modal.preview()).not.toContain('Fires');
    modal.add();
    expect(editor.getValue()).toBe('Water plants');
  });

  it('normalises a line that already has its @remind without asking', () => {
    const open = vi.spyOn(ReminderTimeModal.prototype, 'open');
    const { editor, run } = commandsOn('Call @remind(2026-11-24 10:00)');
    run('add-reminder-to-line');
    expect(open).not.toHaveBeenCalled();
    expect(editor.getValue()).toMatch(/^Call @remind\(2026-11-24 10:00\) \^r-[a-z0-9]+$/);
  });
});

describe('Snooze and Complete in the palette', () => {
  it('are offered only on a line holding a reminder', () => {
    const plain = commandsOn('- [ ] Buy milk');
    expect(plain.offered('snooze-reminder')).toBe(false);
    expect(plain.offered('complete-reminder')).toBe(false);
    const cairn = commandsOn('- [ ] Call @remind(2026-11-24 10:00)');
    expect(cairn.offered('snooze-reminder')).toBe(true);
    expect(cairn.offered('complete-reminder')).toBe(true);
    const tasks = commandsOn('- [ ] Form ⏰ 2026-11-24 10:00');
    expect(tasks.offered('complete-reminder')).toBe(true);
  });
});
