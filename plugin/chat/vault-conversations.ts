/**
 * Conversations kept in the vault (DESIGN §4, `Cairn/Chats/` by default): each finished turn is
 * added to its chat's Markdown file (shared/chat/conversation-file), and the folder can be
 * listed to reopen a chat. A file that no longer reads as a chat (edited by hand into something
 * else) is never overwritten: the turn starts a new chat file instead.
 */
import type { ChatTurn, ConversationSink } from '../../shared/chat/chat-engine';
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
} from '../../shared/chat/conversation-file';
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
    if (conversation !== undefined && files.exists(conversation)) {
      let continued = false;
      await files.process(conversation, (current) => {
        const parsed = parseConversation(current);
        if (!parsed.ok) return current;
        continued = true;
        return formatConversation(appendTurn(parsed.conversation, turn));
      });
      if (continued) return conversation;
    }
    return this.start(turn);
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

  private async start(turn: ChatTurn): Promise<string> {
    const { files, randomBytes } = this.options;
    const fresh = newConversation(newNoteId(randomBytes), turn.at, this.options.zone(), turn.user);
    const conversation = appendTurn(fresh, turn);
    const folder = this.options.folder().replace(/\/+$/, '');
    const name = conversationFileName(conversation);
    let path = folder === '' ? name : `${folder}/${name}`;
    if (files.exists(path)) path = path.replace(/\.md$/, ` ${newShortId(randomBytes)}.md`);
    await files.create(path, formatConversation(conversation));
    return path;
  }
}
