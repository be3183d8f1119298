import { ItemView, Platform } from 'obsidian';
import type { WorkspaceLeaf } from 'obsidian';
import { mount, unmount } from 'svelte';
import ChatPane from '../ui/ChatPane.svelte';
import { ENTER_SENDS_CONTEXT } from '../ui/composer-keys';
import type { ReadableChatServices } from '../chat-session';
import type { ReadableConnection } from '../../connection/connection-monitor';

export const CAIRN_VIEW_TYPE = 'cairn-chat';

/** What the pane needs from the rest of the plugin: state to show and actions to offer. */
export interface CairnViewDeps {
  connection: ReadableConnection;
  /** The chat, null until the plugin built it after layout-ready. */
  chat: ReadableChatServices;
  onRetryConnection: () => void;
  onOpenSettings: () => void;
}

/**
 * The side pane. Obsidian owns its lifetime (it may be restored from the saved layout
 * before the plugin's layout-ready work runs), so it only mounts the Svelte root on open
 * and unmounts it on close; the chat appears in it once the plugin has built it.
 */
export class CairnView extends ItemView {
  private component: ReturnType<typeof mount> | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: CairnViewDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return CAIRN_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return 'Cairn';
  }

  override getIcon(): string {
    return 'messages-square';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.addClass('cairn-view');
    this.component = mount(ChatPane, {
      target: this.contentEl,
      props: {
        connection: this.deps.connection,
        chat: this.deps.chat,
        onRetry: this.deps.onRetryConnection,
        onOpenSettings: this.deps.onOpenSettings,
      },
      // Touch keyboards have no Shift+Enter: there Enter is a new line and Send sends.
      context: new Map([[ENTER_SENDS_CONTEXT, !Platform.isMobile]]),
    });
  }

  override async onClose(): Promise<void> {
    if (this.component) {
      await unmount(this.component);
      this.component = null;
    }
    this.contentEl.empty();
  }
}
