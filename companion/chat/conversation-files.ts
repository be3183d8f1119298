import { randomBytes as nodeRandomBytes } from 'node:crypto';
import type { ChatTurn, ConversationSink } from '../../shared/chat/chat-engine';
import {
  appendTurn,
  conversationFileName,
  formatConversation,
  newConversation,
  parseConversation,
} from '../../shared/chat/conversation-file';
import { newNoteId, newShortId } from '../../shared/markdown';
import type { RandomBytes } from '../../shared/markdown';
import { createVaultFile, editVaultFile, VaultWriteError } from '../vault/atomic-write';
import type { IndexAfterWrite } from '../search/index-after-write';
import { resolveVaultPath } from '../vault/paths';

export interface ConversationFilesDeps {
  readonly vault: string;
  /** Settings' chat folder (`Cairn/Chats`). */
  readonly folder: string;
  readonly zone: () => string;
  readonly indexAfterWrite?: IndexAfterWrite;
  readonly randomBytes?: RandomBytes;
}

/**
 * Chats from the companion (the phone page, scripts) kept in the vault like the plugin's
 * (docs/chat.md; shared/chat/conversation-file.ts), so a chat started on the phone shows up in
 * Obsidian's chat list. A turn continues the chat file the client names when that file still
 * reads as a chat; otherwise (gone, edited into something else, not a chat at all) the turn
 * starts a new file and the named one is left untouched.
 */
export class ConversationFiles implements ConversationSink {
  private readonly randomBytes: RandomBytes;

  constructor(private readonly deps: ConversationFilesDeps) {
    this.randomBytes = deps.randomBytes ?? ((count) => new Uint8Array(nodeRandomBytes(count)));
  }

  async record(conversation: string | undefined, turn: ChatTurn): Promise<string> {
    if (conversation !== undefined) {
      const continued = await this.continueChat(conversation, turn);
      if (continued !== undefined) return continued;
    }
    return this.start(turn);
  }

  private async continueChat(path: string, turn: ChatTurn): Promise<string | undefined> {
    const resolved = await resolveVaultPath(this.deps.vault, path, 'write');
    if (!resolved.ok || !resolved.exists) return undefined;
    let isChat = false;
    try {
      const edited = await editVaultFile(this.deps.vault, resolved.relative, (current) => {
        const parsed = parseConversation(current);
        isChat = parsed.ok;
        return parsed.ok ? formatConversation(appendTurn(parsed.conversation, turn)) : current;
      });
      if (!isChat) return undefined;
      await this.deps.indexAfterWrite?.(edited.path);
      return edited.path;
    } catch (error) {
      // Changed twice while being written: keep the turn in a new file rather than lose it.
      if (error instanceof VaultWriteError) return undefined;
      throw error;
    }
  }

  private async start(turn: ChatTurn): Promise<string> {
    const fresh = newConversation(
      newNoteId(this.randomBytes),
      turn.at,
      this.deps.zone(),
      turn.user,
    );
    const conversation = appendTurn(fresh, turn);
    const folder = this.deps.folder.replace(/^\/+|\/+$/g, '');
    const name = conversationFileName(conversation);
    const first = folder === '' ? name : `${folder}/${name}`;
    const text = formatConversation(conversation);
    let path: string;
    try {
      path = (await createVaultFile(this.deps.vault, first, text)).path;
    } catch (error) {
      if (!(error instanceof VaultWriteError && error.code === 'CONFLICT')) throw error;
      const other = first.replace(/\.md$/, ` ${newShortId(this.randomBytes)}.md`);
      path = (await createVaultFile(this.deps.vault, other, text)).path;
    }
    await this.deps.indexAfterWrite?.(path);
    return path;
  }
}
