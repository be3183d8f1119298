/**
 * "New reminder" (a title, natural-language or absolute time shown live as it will be saved,
 * an optional repeat; Save stays disabled with the reason shown while the input does not read)
 * and the snooze chooser (15 minutes, 1 hour, tomorrow 09:00). The logic lives in
 * plugin/reminders/; these only draw it.
 */
import { Modal, Setting } from 'obsidian';
import type { App, ButtonComponent, TextComponent } from 'obsidian';
import { checkNewReminder } from '../new-reminder-form';
import type { NewReminderCheck, NewReminderInput } from '../new-reminder-form';
import { checkReminderTime } from '../line-commands';
import type { SnoozeChoice } from '../line-commands';

export interface NewReminderModalDeps {
  now: () => number;
  zone: () => string;
  save: (check: Extract<NewReminderCheck, { ok: true }>) => Promise<void>;
}

export class NewReminderModal extends Modal {
  private readonly input: NewReminderInput = { title: '', when: '', repeat: '' };

  constructor(
    app: App,
    private readonly deps: NewReminderModalDeps,
    initialTitle = '',
  ) {
    super(app);
    this.input.title = initialTitle;
  }

  override onOpen(): void {
    this.titleEl.setText('New reminder');
    const { contentEl } = this;
    contentEl.addClass('cairn-reminder-modal');
    new Setting(contentEl).setName('Title').addText((text) =>
      text
        .setPlaceholder('Call the bank')
        .setValue(this.input.title)
        .onChange((value) => {
          this.input.title = value;
          this.failure = null;
          this.refresh();
        }),
    );
    new Setting(contentEl)
      .setName('When')
      .setDesc('For example: tomorrow 5pm, next monday at 8, 2026-11-24 17:00')
      .addText((text) =>
        text.setPlaceholder('Tomorrow 5pm').onChange((value) => {
          this.input.when = value;
          this.failure = null;
          this.refresh();
        }),
      );
    new Setting(contentEl)
      .setName('Repeat (optional)')
      .setDesc('For example: every monday, every 2 weeks, or a recurrence rule')
      .addText((text) =>
        text.onChange((value) => {
          this.input.repeat = value;
          this.failure = null;
          this.refresh();
        }),
      );
    this.previewEl = contentEl.createDiv({ cls: 'cairn-reminder-preview' });
    new Setting(contentEl).addButton((button) => {
      this.saveButton = button.buttonEl;
      button
        .setButtonText('Save')
        .setCta()
        .onClick(() => void this.submit());
    });
    // Enter saves from any field, as the Save button would (it does nothing while invalid).
    this.scope.register([], 'Enter', (event) => {
      if (event.isComposing) return;
      event.preventDefault();
      void this.submit();
      return false;
    });
    this.refresh();
  }

  private previewEl: HTMLElement | null = null;
  private saveButton: HTMLButtonElement | null = null;
  private saving = false;
  /** Why the last save failed; shown until the input changes. */
  private failure: string | null = null;

  private check(): NewReminderCheck {
    return checkNewReminder(this.input, { now: this.deps.now(), zone: this.deps.zone() });
  }

  private refresh(): void {
    const check = this.check();
    if (this.previewEl !== null && this.failure !== null) {
      this.previewEl.setText(this.failure);
      this.previewEl.toggleClass('mod-warning', true);
    } else if (this.previewEl !== null) {
      this.previewEl.setText(
        check.ok ? `Fires ${check.preview} (${check.zone})` : `${check.field}: ${check.reason}`,
      );
      this.previewEl.toggleClass('mod-warning', !check.ok);
    }
    if (this.saveButton !== null) this.saveButton.disabled = !check.ok || this.saving;
  }

  private async submit(): Promise<void> {
    const check = this.check();
    if (!check.ok || this.saving) return;
    this.saving = true;
    this.refresh();
    try {
      await this.deps.save(check);
      this.close();
    } catch (error) {
      this.saving = false;
      this.failure = `Could not save: ${error instanceof Error ? error.message : String(error)}`;
      this.refresh();
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

export class SnoozeChoiceModal extends Modal {
  constructor(
    app: App,
    private readonly choices: readonly SnoozeChoice[],
    private readonly choose: (choice: SnoozeChoice) => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.titleEl.setText('Snooze reminder');
    const setting = new Setting(this.contentEl);
    for (const choice of this.choices) {
      setting.addButton((button) =>
        button.setButtonText(choice.label).onClick(() => {
          this.close();
          this.choose(choice);
        }),
      );
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

export interface ReminderTimeModalDeps {
  now: () => number;
  zone: () => string;
  /** Writes the reminder for `when` (as typed); returns why it could not, or nothing. */
  save: (when: string) => string | undefined;
}

/**
 * "Add reminder to this line" asks when: the time typed is shown live as it will fire, and
 * Enter (outside an IME composition) or Add writes it. Starts at "tomorrow 09:00", selected so
 * typing replaces it.
 */
export class ReminderTimeModal extends Modal {
  private when = 'tomorrow 09:00';
  private previewEl: HTMLElement | null = null;
  private whenField: TextComponent | null = null;
  private addButton: ButtonComponent | null = null;
  private failure: string | null = null;

  constructor(
    app: App,
    private readonly deps: ReminderTimeModalDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.titleEl.setText('Add reminder to this line');
    const { contentEl } = this;
    contentEl.addClass('cairn-reminder-modal');
    new Setting(contentEl)
      .setName('When')
      .setDesc('For example: tomorrow 5pm, next monday at 8, 2026-11-24 17:00')
      .addText((text) => {
        this.whenField = text;
        text.setValue(this.when).onChange((value) => {
          this.when = value;
          this.failure = null;
          this.refresh();
        });
        text.inputEl.select();
      });
    this.previewEl = contentEl.createDiv({ cls: 'cairn-reminder-preview' });
    new Setting(contentEl).addButton((button) => {
      this.addButton = button;
      button
        .setButtonText('Add')
        .setCta()
        .onClick(() => this.submit());
    });
    this.scope.register([], 'Enter', (event) => {
      if (event.isComposing) return;
      event.preventDefault();
      this.submit();
      return false;
    });
    this.refresh();
  }

  private refresh(): void {
    const check = checkReminderTime(this.when, { now: this.deps.now(), zone: this.deps.zone() });
    if (this.previewEl !== null) {
      this.previewEl.setText(
        this.failure ?? (check.ok ? `Fires ${check.label} (${this.deps.zone()})` : check.problem),
      );
      this.previewEl.toggleClass('mod-warning', this.failure !== null || !check.ok);
    }
    this.addButton?.setDisabled(!check.ok);
  }

  private submit(): void {
    const check = checkReminderTime(this.when, { now: this.deps.now(), zone: this.deps.zone() });
    if (!check.ok) return;
    const problem = this.deps.save(this.when);
    if (problem === undefined) {
      this.close();
      return;
    }
    this.failure = problem;
    this.refresh();
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
