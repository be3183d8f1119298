/**
 * Builds the chat for the pane (docs/chat.md) over Obsidian: the ChatEngine with the vault-backed
 * writers (reminders through the companion's API while one is paired), the in-vault search, conversations in the chats folder and, when a chat model is set,
 * Ollama for routing and phrasing, and a vision model for messages with images; plus the pane's callbacks (Markdown through Obsidian's
 * renderer, citations opened at their line or page). Every tool call of the chat passes the
 * tool gate with the plugin's own policy (local-tool-policy.ts, docs/tools.md), its asks
 * answered from the pane's card. Settings are read per message, so a
 * change in the settings tab applies to the next message without rebuilding anything.
 */
import {
  Component,
  MarkdownRenderer,
  MarkdownView,
  Notice,
  Platform,
  TFile,
  setIcon,
} from 'obsidian';
import type { App, Editor } from 'obsidian';
import {
  ChatSession,
  type AnswerActions,
  type ChatPaneServices,
  type ChatScopeControl,
} from '../chat-session';
import { ChatScope } from '../chat-scope';
import { NO_VISION_MODEL } from '../chat-images';
import { CompanionReminders } from '../../reminders/stores/companion-reminders';
import { fetchOllamaHttp, transportOllamaHttp } from '../ollama-transports';
import { PairedReminders } from '../../reminders/stores/paired-reminders';
import { VaultConversations } from '../vault-conversations';
import { VaultMemories } from '../vault-memories';
import { VaultNoteWriter } from '../../notes/vault-note-writer';
import { VaultReminders } from '../../reminders/stores/vault-reminders';
import { VaultSearcher } from '../vault-searcher';
import { VisionChat, type VisionModel } from '../vision-chat';
import { LocalToolPolicy, localChatBackend } from '../local-tool-policy';
import type { VaultSearch } from '../../search/vault-search';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { offlineModeViolation } from '../../../shared/settings/validation';
import { ChatEngine } from '../../../shared/chat/chat-engine';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import { routeMessage } from '../../../shared/chat/intent-router';
import { OllamaPhraser } from '../../../shared/chat/ollama-phraser';
import { OpenAiCompatiblePhraser } from '../../../shared/chat/openai-compatible-phraser';
import { OllamaRouter } from '../../../shared/chat/ollama-router';
import {
  ChatPortError,
  type AnswerPhraser,
  type MessageRouter,
  type NoteWriter,
  type Searcher,
} from '../../../shared/chat/ports';
import type { Citation } from '../../../shared/protocol/citation';
import type { HttpTransport } from '../../connection/http-transport';
import type { OllamaHttp } from '../../../shared/chat/ollama-http';
import { ObsidianChatFiles } from './obsidian-chat-files';

export interface ChatServicesOptions {
  app: App;
  settings: () => CairnSettings;
  /** The in-vault search, null while it is starting or if it failed. */
  vaultSearch: () => (VaultSearch & { modeLabel?: string }) | null;
  transport: HttpTransport;
}

const clock = { now: () => Date.now() };
const minuteClock = { now: () => Math.floor(Date.now() / 60_000) * 60_000 };
const randomBytes = (count: number) => crypto.getRandomValues(new Uint8Array(count));

export interface ChatParts {
  services: ChatPaneServices;
  /** The engine's note writer, shared with the note commands (one undo memory). */
  notes: NoteWriter;
  files: ObsidianChatFiles;
  /** `Cairn/Memory.md` for the chat, and for the import command. */
  memories: VaultMemories;
  /** The chat's tool policy: the settings tab lists its tools; close it on unload. */
  tools: LocalToolPolicy;
}

export function createChatServices(options: ChatServicesOptions): ChatParts {
  const { app, settings } = options;
  const files = new ObsidianChatFiles(app);
  const scope = new ChatScope({
    resolveLink: (link) => app.metadataCache.getFirstLinkpathDest(link, '')?.path,
  });
  const zone = () => settings().timezone;
  const searcher: Searcher = {
    search: (request) => {
      const search = options.vaultSearch();
      if (search === null) {
        return Promise.reject(
          new ChatPortError(
            'UNAVAILABLE',
            'the search index is not running yet; it starts a moment after Obsidian opens',
          ),
        );
      }
      return new VaultSearcher(search, () => scope.current).search(request);
    },
  };
  const vaultReminders = new VaultReminders({
    files,
    // Reminder notes refuse a `created` with seconds (minute resolution); a live clock has them.
    clock: minuteClock,
    zone,
    remindersFolder: () => settings().folders.reminders,
    randomBytes,
  });
  // Paired: the companion schedules what the chat sets at once; else (or unreachable) the vault.
  const companionReminders = new CompanionReminders(
    options.transport,
    () => ({
      url: settings().companion.url,
      token: settings().companion.token,
      offlineMode: settings().privacy.offlineMode,
    }),
    clock,
  );
  const reminders = new PairedReminders(companionReminders, vaultReminders, clock);
  const conversations = new VaultConversations({
    files,
    folder: () => settings().folders.chats,
    zone,
    randomBytes,
  });
  const notes = new VaultNoteWriter({
    files,
    clock,
    zone,
    notesFolder: () => settings().folders.notes,
    randomBytes,
  });
  const answerer = new ExtractiveAnswerer(searcher);
  // fetch streams tokens as they come; requestUrl (mobile) delivers the answer in one piece.
  const streamingHttp = Platform.isDesktopApp
    ? fetchOllamaHttp(window.fetch.bind(window))
    : transportOllamaHttp(options.transport);
  const memories = new VaultMemories({ files, clock, zone });
  // Every tool call of this chat, routed by a model or by the rules, passes the one gate.
  const tools = new LocalToolPolicy({
    settings,
    clock,
    schedule: (ms, fn) => {
      const timer = window.setTimeout(fn, ms);
      return () => window.clearTimeout(timer);
    },
    randomBytes,
  });
  const engine = new ChatEngine({
    clock,
    zone,
    notes,
    reminderReader: reminders,
    reminderWriter: reminders,
    searcher,
    answerer,
    router: settingsRouter(settings, options.transport),
    phraser: settingsPhraser(settings, streamingHttp),
    unsupportedClaims: () => settings().ollama.unsupportedClaims,
    conversations,
    memories,
    policy: tools,
  });
  const vision = new VisionChat({
    http: streamingHttp,
    model: () => visionModel(settings()),
    answerer,
    conversations,
    clock,
  });
  const session = new ChatSession(
    localChatBackend(engine, tools),
    conversations,
    () => options.vaultSearch()?.modeLabel,
    vision,
  );

  const services: ChatPaneServices = {
    session,
    renderMarkdown: (el, text, sourcePath) => {
      const component = new Component();
      component.load();
      // Wiki links in rendered Markdown are plain anchors outside the editor: open them here.
      component.registerDomEvent(el, 'click', (event) => {
        const link = (event.target as HTMLElement | null)?.closest('a.internal-link');
        const target = link?.getAttribute('data-href') ?? link?.getAttribute('href');
        if (!target) return;
        event.preventDefault();
        void app.workspace.openLinkText(target, sourcePath, event.ctrlKey || event.metaKey);
      });
      void MarkdownRenderer.render(app, text, el, sourcePath, component);
      return () => component.unload();
    },
    openCitation: (citation) => void openCitation(app, citation),
    openFile: (path) => {
      const file = app.vault.getAbstractFileByPath(path);
      if (file instanceof TFile) void app.workspace.getLeaf(false).openFile(file);
      else new Notice(`Cairn: ${path} no longer exists.`);
    },
    setIcon: (el, name) => setIcon(el, name),
    previewCitation: (event, citation) =>
      app.workspace.trigger('hover-link', {
        event,
        source: CHAT_HOVER_SOURCE,
        hoverParent: { hoverPopover: null },
        targetEl: event.currentTarget,
        linktext: citation.path,
        sourcePath: '',
        ...(citation.type === 'note' ? { state: { scroll: citation.lines[0] - 1 } } : {}),
      }),
    answerActions: answerActions(app),
    scope: scopeControl(app, scope),
  };
  return { services, notes, files, memories, tools };
}

export const CHAT_HOVER_SOURCE = 'cairn-chat';

/** Mention suggestions shown at once. */
const MENTION_SUGGESTIONS = 8;

function scopeControl(app: App, scope: ChatScope): ChatScopeControl {
  const activeNote = (): TFile | null => {
    const view = app.workspace.getMostRecentLeaf()?.view;
    return view instanceof MarkdownView ? view.file : app.workspace.getActiveFile();
  };
  return {
    attached: scope.attached,
    attachActiveNote: () => {
      const file = activeNote();
      if (file) scope.attachNote(file.path);
      else new Notice('Cairn: open a note first to attach it.');
    },
    attachActiveFolder: () => {
      const folder = activeNote()?.parent?.path;
      if (folder === undefined) new Notice('Cairn: open a note first to attach its folder.');
      else if (folder === '/' || folder === '')
        new Notice('Cairn: that note is at the vault root.');
      else scope.attachFolder(folder);
    },
    detach: (item) => scope.detach(item),
    beginTurn: (message) => {
      const { unresolved } = scope.beginTurn(message);
      if (unresolved.length > 0)
        new Notice(`Cairn: no note named ${unresolved.map((l) => `[[${l}]]`).join(', ')}.`);
    },
    suggestNotes: (query) => {
      const wanted = query.trim().toLowerCase();
      const scored: Array<{ linkText: string; path: string; rank: number }> = [];
      for (const file of app.vault.getMarkdownFiles()) {
        const name = file.basename.toLowerCase();
        const at = name.indexOf(wanted);
        if (at < 0) continue;
        scored.push({
          linkText: app.metadataCache.fileToLinktext(file, '', true),
          path: file.path,
          // Name starts with it, then contains it; shorter names first.
          rank: (at === 0 ? 0 : 1000) + name.length,
        });
      }
      scored.sort((a, b) => a.rank - b.rank || (a.path < b.path ? -1 : 1));
      return scored.slice(0, MENTION_SUGGESTIONS).map(({ linkText, path }) => ({ linkText, path }));
    },
  };
}

/**
 * Copy, insert at cursor and append to note. "The note" is the Markdown note last active in
 * the main area: the chat pane itself has focus when its buttons are clicked.
 */
export function answerActions(app: App): AnswerActions {
  const lastNote = (): MarkdownView | null => {
    const view = app.workspace.getMostRecentLeaf()?.view;
    return view instanceof MarkdownView && view.file ? view : null;
  };
  return {
    copy: (text) => {
      navigator.clipboard.writeText(text).then(
        () => new Notice('Cairn: answer copied.'),
        (error: unknown) => new Notice(`Cairn: could not copy (${String(error)}).`),
      );
    },
    insertAtCursor: (text) => {
      const view = lastNote();
      if (!view) {
        new Notice('Cairn: open a note first to insert the answer into it.');
        return;
      }
      view.editor.replaceSelection(text);
      new Notice(`Cairn: answer inserted into ${view.file?.basename ?? 'the note'}.`);
    },
    appendToNote: (text) => {
      const view = lastNote();
      if (!view) {
        new Notice('Cairn: open a note first to append the answer to it.');
        return;
      }
      appendToEditor(view.editor, text);
      new Notice(`Cairn: answer appended to ${view.file?.basename ?? 'the note'}.`);
    },
  };
}

/**
 * Appends at the end of an open note through its Editor: one edit (one undo) on what the editor
 * holds now, typing not yet saved included, where `vault.process` would write the file under
 * the editor and race its next save. Trailing blank lines give way to one blank line.
 */
export function appendToEditor(editor: Editor, text: string): void {
  const content = editor.getValue();
  const end = content.replace(/\s*$/, '').length;
  editor.replaceRange(
    `${end === 0 ? '' : '\n\n'}${text}\n`,
    editor.offsetToPos(end),
    editor.offsetToPos(content.length),
  );
}

/**
 * Opens a cited passage: a PDF at its page, a note at its first line (the editor scrolls there).
 * A citation from a reopened chat has no line, only the heading: Obsidian's heading link.
 */
async function openCitation(app: App, citation: Citation): Promise<void> {
  const file = app.vault.getAbstractFileByPath(citation.path);
  if (!(file instanceof TFile)) {
    new Notice(`Cairn: ${citation.path} no longer exists.`);
    return;
  }
  if (citation.type === 'pdf') {
    await app.workspace.openLinkText(`${file.path}#page=${citation.page}`, '', false);
    return;
  }
  if (citation.excerpt === '' && citation.heading !== undefined) {
    await app.workspace.openLinkText(`${file.path}#${citation.heading}`, '', false);
    return;
  }
  await app.workspace
    .getLeaf(false)
    .openFile(file, { eState: { line: Math.max(0, citation.lines[0] - 1) } });
}

interface OllamaTarget {
  baseUrl: string;
  model: string;
}

/** The model named, or why it is not used (offline mode), or null when none is set. */
function ollamaTarget(
  settings: CairnSettings,
  name = settings.ollama.chatModel,
): OllamaTarget | { refused: string } | null {
  const model = name.trim();
  if (model === '') return null;
  const violation = offlineModeViolation(settings.ollama.url, settings.privacy.offlineMode);
  if (violation !== null) return { refused: violation };
  return { baseUrl: settings.ollama.url, model };
}

/** The vision model, or why messages with images cannot be sent (none set, offline mode). */
function visionModel(settings: CairnSettings): VisionModel | { refused: string } {
  return ollamaTarget(settings, settings.ollama.visionModel) ?? { refused: NO_VISION_MODEL };
}

function settingsRouter(settings: () => CairnSettings, transport: HttpTransport): MessageRouter {
  const http = transportOllamaHttp(transport);
  return {
    route: (message, context) => {
      // Routing uses Ollama's tool calls; with another provider the rules route.
      const current = settings();
      const target = current.chat.provider === 'ollama' ? ollamaTarget(current) : null;
      if (target === null)
        return Promise.resolve({ ...routeMessage(message, context), via: 'rules' });
      if ('refused' in target) {
        return Promise.resolve({
          ...routeMessage(message, context),
          via: 'rules',
          fallbackReason: target.refused,
        });
      }
      return new OllamaRouter({ http, ...target }).route(message, context);
    },
  };
}

/** The OpenAI-compatible server's model, or why it is not used (offline mode), or null when none is set. */
function openAiTarget(
  settings: CairnSettings,
): (OllamaTarget & { apiKey: string }) | { refused: string } | null {
  const model = settings.chat.openAiModel.trim();
  if (model === '') return null;
  const violation = offlineModeViolation(settings.chat.openAiUrl, settings.privacy.offlineMode);
  if (violation !== null) return { refused: violation };
  return { baseUrl: settings.chat.openAiUrl, model, apiKey: settings.chat.openAiKey };
}

/**
 * Phrases with the chosen provider's model. With none set (or refused by offline mode) the
 * phrasing says nothing, and the engine shows the extractive answer.
 */
function settingsPhraser(settings: () => CairnSettings, http: OllamaHttp): AnswerPhraser {
  return {
    async *phrase(request) {
      const current = settings();
      if (current.chat.provider === 'openai-compatible') {
        const target = openAiTarget(current);
        if (target === null || 'refused' in target) return;
        yield* new OpenAiCompatiblePhraser({ http, ...target }).phrase(request);
        return;
      }
      const target = ollamaTarget(current);
      if (target === null || 'refused' in target) return;
      yield* new OllamaPhraser({ http, ...target }).phrase(request);
    },
  };
}
