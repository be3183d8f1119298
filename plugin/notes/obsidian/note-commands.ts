/**
 * The note commands (docs/vault-format.md, docs/chat.md): "New note" (a form → a front-mattered note through the
 * chat's note writer, collision-safe), "Append selection to note…" (pick a note, the selection
 * goes to its end) and "Ask Cairn about this note/selection" (opens the chat with the question
 * started). Registered by main.ts at layout-ready; every modal closes on unload.
 */
import { FuzzySuggestModal, Modal, Notice, Setting, TFile } from 'obsidian';
import type { App, Editor, MarkdownFileInfo, MarkdownView, Plugin } from 'obsidian';
import type { NoteWriter } from '../../../shared/chat/ports';
import { ChatPortError } from '../../../shared/chat/ports';
import { askPrefill, checkNoteForm, type NoteFormInput } from './note-form';

export interface NoteCommandsDeps {
  notes: NoteWriter;
  /** Opens the chat pane with `text` in its composer. */
  ask: (text: string) => Promise<void>;
  /** The note title as Cairn reads it (front matter, first H1, file name). */
  titleOf: (file: TFile) => string;
}

export function registerNoteCommands(plugin: Plugin, deps: NoteCommandsDeps): void {
  const { app } = plugin;
  let open: Modal | null = null;
  const show = (modal: Modal) => {
    open?.close();
    open = modal;
    modal.open();
  };
  plugin.register(() => open?.close());

  plugin.addCommand({
    id: 'new-note',
    name: 'New note',
    callback: () => show(new NewNoteModal(app, deps)),
  });

  plugin.addCommand({
    id: 'append-selection-to-note',
    name: 'Append selection to note…',
    editorCheckCallback: (
      checking: boolean,
      editor: Editor,
      ctx: MarkdownView | MarkdownFileInfo,
    ) => {
      const selection = editor.getSelection();
      if (selection.trim() === '') return false;
      if (!checking) show(new AppendTargetModal(app, deps, selection, ctx.file?.path));
      return true;
    },
  });

  plugin.addCommand({
    id: 'ask-about-note',
    name: 'Ask about this note or selection',
    editorCheckCallback: (
      checking: boolean,
      editor: Editor,
      ctx: MarkdownView | MarkdownFileInfo,
    ) => {
      const file = ctx.file;
      if (!file) return false;
      if (!checking)
        void deps.ask(askPrefill({ title: deps.titleOf(file) }, editor.getSelection()));
      return true;
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof ChatPortError) {
    return error.field === undefined ? error.message : `${error.field}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Title, tags and body; problems are shown under the form, naming the field. */
class NewNoteModal extends Modal {
  private readonly input: NoteFormInput = { title: '', tags: '', body: '' };
  private problemEl: HTMLElement | null = null;
  private saving = false;

  constructor(
    app: App,
    private readonly deps: NoteCommandsDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.titleEl.setText('New note');
    this.contentEl.addClass('cairn-note-modal');
    new Setting(this.contentEl)
      .setName('Title')
      .addText((text) =>
        text.setPlaceholder('Visa rules summary').onChange((value) => (this.input.title = value)),
      );
    new Setting(this.contentEl)
      .setName('Tags')
      .setDesc('Separated by spaces or commas, # optional.')
      .addText((text) =>
        text.setPlaceholder('Travel, visa').onChange((value) => (this.input.tags = value)),
      );
    new Setting(this.contentEl)
      .setName('Body')
      .addTextArea((text) => text.onChange((value) => (this.input.body = value)));
    this.problemEl = this.contentEl.createDiv({ cls: 'cairn-note-modal-problem' });
    new Setting(this.contentEl).addButton((button) =>
      button
        .setButtonText('Create')
        .setCta()
        .onClick(() => void this.submit()),
    );
    // Enter creates from the one-line fields; in the body it is a new line, and Mod+Enter
    // creates from anywhere.
    this.scope.register([], 'Enter', (event) => {
      // tagName, not instanceof: the modal may sit in a popout window with its own globals.
      const target = event.target as HTMLElement | null;
      if (event.isComposing || target?.tagName === 'TEXTAREA') return;
      event.preventDefault();
      void this.submit();
      return false;
    });
    this.scope.register(['Mod'], 'Enter', (event) => {
      event.preventDefault();
      void this.submit();
      return false;
    });
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private async submit(): Promise<void> {
    if (this.saving) return;
    const checked = checkNoteForm(this.input);
    if (!checked.ok) {
      this.problemEl?.setText(checked.message);
      return;
    }
    this.saving = true;
    try {
      const created = await this.deps.notes.create(checked.note);
      new Notice(`Cairn: note created at ${created.path}`);
      this.close();
      const file = this.app.vault.getAbstractFileByPath(created.path);
      if (file instanceof TFile) await this.app.workspace.getLeaf(false).openFile(file);
    } catch (error) {
      this.problemEl?.setText(`The note was not created: ${describe(error)}`);
    } finally {
      this.saving = false;
    }
  }
}

/** Picks the note to append to; the current note is left out. */
class AppendTargetModal extends FuzzySuggestModal<TFile> {
  constructor(
    app: App,
    private readonly deps: NoteCommandsDeps,
    private readonly selection: string,
    private readonly currentPath: string | undefined,
  ) {
    super(app);
    this.setPlaceholder('Append the selection to which note?');
  }

  override getItems(): TFile[] {
    return this.app.vault.getMarkdownFiles().filter((file) => file.path !== this.currentPath);
  }

  override getItemText(file: TFile): string {
    const title = this.deps.titleOf(file);
    return title === file.basename ? file.path : `${title} (${file.path})`;
  }

  override onChooseItem(file: TFile): void {
    void this.deps.notes
      .append({ note: file.path, text: this.selection })
      .then((appended) => new Notice(`Cairn: appended to ${appended.title}`))
      .catch((error: unknown) => new Notice(`Cairn: nothing appended: ${describe(error)}`));
  }
}
