/**
 * Conversations kept in the vault (docs/chat.md, `Cairn/Chats/` by default): each finished turn is
 * added to its chat's Markdown file (shared/chat/conversation-file), and the folder can be
 * listed to reopen a chat. A file that no longer reads as a chat (edited by hand into something
 * else) is never overwritten: the turn starts a new chat file instead.
 *
 * A write's turn keeps the hash of the file it wrote, read back as the turn is recorded, so a
 * reopened chat offers Undo only while that file is still exactly what Cairn left.
 */
import type { ChatTurn, ConversationSink, UndoAction } from '../../shared/chat/chat-engine';
import {
  appendTurn,
  conversationFileName,
  formatConversation,
  listConversations,
  newConversation,
  parseConversation,
  type Conversation,
  type ConversationListing,
  type ConversationProblem,
  type StoredUndo,
} from '../../shared/chat/conversation-file';
import { textHash } from '../../shared/search/hash';
import { newNoteId, newShortId, type RandomBytes } from '../../shared/markdown';
import type { ChatVaultFiles } from './chat-vault-files';

export interface VaultConversationsOptions {
  files: ChatVaultFiles;
  /** Settings' chat folder, e.g. `Cairn/Chats`. */
  folder: () => string;
  zone: () => string;
  randomBytes: RandomBytes;
}

export class VaultConversations implements ConversationSink {
  constructor(private readonly options: VaultConversationsOptions) {}

  async record(conversation: string | undefined, turn: ChatTurn): Promise<string> {
    const { files } = this.options;
    const written = await this.writtenHash(turn);
    if (conversation !== undefined && files.exists(conversation)) {
      let continued = false;
      await files.process(conversation, (current) => {
        const parsed = parseConversation(current);
        if (!parsed.ok) return current;
        continued = true;
        return formatConversation(appendTurn(parsed.conversation, turn, written));
      });
      if (continued) return conversation;
    }
    return this.start(turn, written);
  }

  /**
   * Why a reopened card's Undo cannot run, or undefined when it may: the file it would undo is
   * gone or changed since the write. Without a stored hash (the file was not in this vault at
   * the time, e.g. a reminder the companion wrote) the undo's own checks decide.
   */
  async undoBlocker(stored: StoredUndo): Promise<string | undefined> {
    if (stored.hash === undefined) return undefined;
    const path = undoPath(stored.action);
    const text = await this.options.files.read(path);
    if (text === undefined) return `${path} no longer exists`;
    if (textHash(text) !== stored.hash) return `${path} changed since Cairn wrote it`;
    return undefined;
  }

  /** The chats in the folder, newest first, and the files there that are not readable chats. */
  async list(): Promise<{
    conversations: ConversationListing[];
    problems: Array<ConversationProblem & { path: string }>;
  }> {
    const { files } = this.options;
    const read = await Promise.all(
      files.listMarkdown(this.options.folder()).map(async (path) => ({
        path,
        text: (await files.read(path)) ?? '',
      })),
    );
    return listConversations(read);
  }

  /** One chat, to reopen it; undefined when the file is gone, a problem when it is unreadable. */
  async open(
    path: string,
  ): Promise<
    | { ok: true; conversation: Conversation }
    | { ok: false; problem: ConversationProblem }
    | undefined
  > {
    const text = await this.options.files.read(path);
    return text === undefined ? undefined : parseConversation(text);
  }

  /** The hash of the file the turn wrote, as it is now (just after the write). */
  private async writtenHash(turn: ChatTurn): Promise<string | undefined> {
    if (turn.result === undefined || !turn.result.success) return undefined;
    const action = (turn.result.data as { undo?: UndoAction } | null)?.undo;
    if (action === undefined) return undefined;
    const text = await this.options.files.read(undoPath(action));
    return text === undefined ? undefined : textHash(text);
  }

  private async start(turn: ChatTurn, written: string | undefined): Promise<string> {
    const { files, randomBytes } = this.options;
    const fresh = newConversation(newNoteId(randomBytes), turn.at, this.options.zone(), turn.user);
    const conversation = appendTurn(fresh, turn, written);
    const folder = this.options.folder().replace(/\/+$/, '');
    const name = conversationFileName(conversation);
    let path = folder === '' ? name : `${folder}/${name}`;
    if (files.exists(path)) path = path.replace(/\.md$/, ` ${newShortId(randomBytes)}.md`);
    await files.create(path, formatConversation(conversation));
    return path;
  }
}

function undoPath(action: UndoAction): string {
  return action.kind === 'restore_reminder' ? action.previous.path : action.path;
}
