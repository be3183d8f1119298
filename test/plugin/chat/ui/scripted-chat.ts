import { vi } from 'vitest';
import {
  ChatSession,
  type ChatBackend,
  type ChatPaneServices,
  type ConversationStore,
} from '../../../../plugin/chat/chat-session';
import type { UndoAction } from '../../../../shared/chat/chat-engine';
import type { ToolResult } from '../../../../shared/chat/tool-schemas';
import type { ChatEvent } from '../../../../shared/protocol/chat';
import type { Citation } from '../../../../shared/protocol/citation';

/** A chat backend whose events the test releases one turn at a time. */
export class ScriptedBackend implements ChatBackend {
  readonly sent: string[] = [];
  readonly undone: UndoAction[] = [];
  undoResult: ToolResult = { success: true, data: { undone: 'delete_reminder' } };
  private queue: ChatEvent[] = [];
  private wake: (() => void) | null = null;

  async *send(message: string): AsyncIterable<ChatEvent> {
    this.sent.push(message);
    for (;;) {
      const event = this.queue.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      yield event;
      if (event.type === 'done' || event.type === 'error') return;
    }
  }

  undo(action: UndoAction): Promise<ToolResult> {
    this.undone.push(action);
    return Promise.resolve(this.undoResult);
  }

  emit(...events: ChatEvent[]): void {
    this.queue.push(...events);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

export const VISA_NOTE: Citation = {
  type: 'note',
  path: 'Travel/Visa rules.md',
  title: 'Visa rules summary',
  heading: 'Key points',
  lines: [12, 18],
  excerpt: 'Fee is $50 for standard processing.',
  score: 0.83,
};

export const VISA_PDF: Citation = {
  type: 'pdf',
  path: 'Attachments/visa-form.pdf',
  title: 'Visa form',
  page: 3,
  excerpt: 'Processing takes ten working days.',
  score: 0.61,
};

export const REMINDER_TOOL: ChatEvent = {
  type: 'tool',
  name: 'create_reminder',
  args: { title: 'Call the bank', due: '2026-11-23T08:00' },
  result: {
    success: true,
    data: {
      reminder: {
        id: 'r1',
        title: 'Call the bank',
        due: '2026-11-23T08:00:00+01:00',
        timezone: 'Europe/Berlin',
        path: 'Cairn/Reminders/call-the-bank.md',
        status: 'active',
      },
      undo: { kind: 'delete_reminder', id: 'r1', path: 'Cairn/Reminders/call-the-bank.md' },
    },
  },
};

export function scriptedServices(
  backend: ChatBackend,
  store?: ConversationStore,
  searchMode?: () => string,
) {
  const session = new ChatSession(backend, store, searchMode);
  const rendered: Array<{ text: string; sourcePath: string }> = [];
  const released = { count: 0 };
  const services: ChatPaneServices = {
    session,
    // Stands in for Obsidian's MarkdownRenderer: marks what was rendered as Markdown.
    renderMarkdown: (el, text, sourcePath) => {
      rendered.push({ text, sourcePath });
      const p = document.createElement('p');
      p.className = 'rendered-markdown';
      p.textContent = text;
      el.append(p);
      return () => (released.count += 1);
    },
    openCitation: vi.fn<(citation: Citation) => void>(),
    openFile: vi.fn<(path: string) => void>(),
  };
  return { session, services, rendered, released };
}
