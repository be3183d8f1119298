import { noteDeepLink } from '../../../shared/reminders/deep-link';
import { isRecord } from '../../../shared/protocol/json';
import { asCitation } from '../citation-link';
import type { CitationView } from '../citation-link';
import { byId, describeError, el } from '../dom';
import { SseReader } from '../sse';
import { citationCard } from './citation-card';
import { fillToolList, toolAskCard } from './tool-ask-card';
import type { PageContext, PageView } from './page-context';

/*
 * Chat: one conversation with the vault, streamed from `POST /api/v1/chat` as Server-Sent Events
 * (`token`, `tool`, `citations`, then `done` or `error`). The answer grows as tokens arrive;
 * a tool that wrote something shows a card linking to what it wrote; sources follow as links.
 * The conversation note the companion saved is passed back, so follow-ups continue it.
 */

/** Tools that change the vault get a card saying what they wrote; reading tools speak for themselves. */
const WRITE_TOOL_LABELS: Record<string, string> = {
  create_note: 'Note created',
  append_to_note: 'Added to note',
  create_reminder: 'Reminder created',
  snooze_reminder: 'Reminder snoozed',
  complete_reminder: 'Reminder done',
};

export function chatView(context: PageContext): PageView {
  const log = byId<HTMLOListElement>('chat-log');
  const form = byId<HTMLFormElement>('chat-form');
  const input = byId<HTMLTextAreaElement>('chat-input');
  const send = byId<HTMLButtonElement>('chat-send');
  const newChat = byId<HTMLButtonElement>('chat-new');
  const empty = byId<HTMLDivElement>('chat-empty');
  const toolsPanel = byId<HTMLDetailsElement>('chat-tools');
  const toolList = byId<HTMLUListElement>('chat-tool-list');
  let conversation: string | undefined;
  toolsPanel.addEventListener('toggle', () => {
    const api = context.api();
    if (toolsPanel.open && api) void fillToolList(toolList, api);
  });

  // Examples fill the box (not send): the user sees and may edit what will be asked.
  for (const example of empty.querySelectorAll<HTMLButtonElement>('button[data-example]')) {
    example.addEventListener('click', () => {
      input.value = (example.textContent ?? '').trim().replace(/\s+/g, ' ');
      fit();
      input.focus();
    });
  }
  let running: AbortController | null = null;

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void turn();
  });
  // The box grows with the message, up to the CSS max-height.
  const fit = () => {
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight + 2}px`;
  };
  input.addEventListener('input', fit);
  input.addEventListener('keydown', (event) => {
    // Enter sends, Shift+Enter breaks the line (as in messaging apps).
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  newChat.addEventListener('click', () => {
    running?.abort();
    conversation = undefined;
    log.replaceChildren();
    empty.hidden = false;
    input.focus();
  });

  async function turn(): Promise<void> {
    const api = context.api();
    const message = input.value.trim();
    if (!api || message === '' || running) return;
    input.value = '';
    fit();
    empty.hidden = true;
    log.append(el('li', { class: 'bubble user' }, message));
    const text = el('p', { class: 'bubble-text' });
    const extras = el('div', { class: 'bubble-extras' });
    const bubble = el('li', { class: 'bubble assistant', 'aria-busy': 'true' }, text, extras);
    log.append(bubble);
    bubble.scrollIntoView({ block: 'end' });
    running = new AbortController();
    send.disabled = true;
    try {
      const response = await api.stream(
        '/api/v1/chat',
        { message, ...(conversation ? { conversation } : {}) },
        running.signal,
      );
      await readEvents(response, (type, event) => {
        if (type === 'token' && typeof event.text === 'string') text.append(event.text);
        else if (type === 'ask' && isRecord(event.ask)) {
          // The turn waits for this answer (docs/tools.md).
          extras.append(toolAskCard(event.ask, api));
        } else if (type === 'tool') {
          const card = toolCard(event);
          if (card) extras.append(card);
        } else if (type === 'citations' && Array.isArray(event.citations)) {
          const citations = event.citations
            .map(asCitation)
            .filter((citation): citation is CitationView => citation !== null);
          if (citations.length > 0) {
            extras.append(
              el('p', { class: 'sources-label' }, 'Sources'),
              el(
                'ol',
                { class: 'citations' },
                ...citations.map((citation, index) =>
                  citationCard(context.vault(), citation, index + 1),
                ),
              ),
            );
          }
        } else if (type === 'done') {
          if (typeof event.conversation === 'string') conversation = event.conversation;
        } else if (type === 'error') {
          const error = isRecord(event.error) ? event.error : {};
          extras.append(
            el(
              'p',
              { class: 'bubble-error' },
              typeof error.message === 'string' ? error.message : 'The answer failed.',
            ),
          );
        }
        bubble.scrollIntoView({ block: 'end' });
      });
    } catch (error) {
      if (!running.signal.aborted) {
        extras.append(el('p', { class: 'bubble-error' }, `Chat failed: ${describeError(error)}`));
      }
    } finally {
      bubble.removeAttribute('aria-busy');
      if (text.textContent === '' && extras.childElementCount === 0) {
        text.textContent = '(no answer)';
      }
      running = null;
      send.disabled = false;
    }
  }

  /** What a tool did, as a card; null for a reading tool that succeeded (its answer is the text). */
  function toolCard(event: Record<string, unknown>): HTMLElement | null {
    const name = typeof event.name === 'string' ? event.name : '';
    const result = isRecord(event.result) ? event.result : {};
    if (result.success === false) {
      const error = isRecord(result.error) ? result.error : {};
      return el(
        'div',
        { class: 'tool-card failed' },
        el('strong', {}, 'Could not do that'),
        el('span', {}, typeof error.message === 'string' ? error.message : name),
      );
    }
    const label = WRITE_TOOL_LABELS[name];
    if (label === undefined) return null;
    const data = isRecord(result.data) ? result.data : {};
    // What was written: `data.reminder` or `data.note`, or the data itself (append_to_note).
    const written = isRecord(data.reminder)
      ? data.reminder
      : isRecord(data.note)
        ? data.note
        : data;
    const path = typeof written.path === 'string' ? written.path : null;
    const title = typeof written.title === 'string' ? written.title : null;
    return el(
      'div',
      { class: 'tool-card' },
      el('strong', {}, result.deduplicated === true ? `${label} (already there)` : label),
      title ? el('span', {}, title) : null,
      path ? el('a', { href: noteDeepLink(context.vault(), path) }, path) : null,
    );
  }

  return {
    show: async () => {
      input.focus();
      const api = context.api();
      if (api && toolsPanel.open) await fillToolList(toolList, api);
    },
    reset() {
      running?.abort();
      conversation = undefined;
      log.replaceChildren();
      empty.hidden = false;
    },
  };
}

/** Reads the SSE body to its end, handing each event's type and parsed JSON to `onEvent`. */
async function readEvents(
  response: Response,
  onEvent: (type: string, event: Record<string, unknown>) => void,
): Promise<void> {
  if (!response.body) throw new Error('the companion sent no stream');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseReader();
  for (;;) {
    const { done, value } = await reader.read();
    const frames = sse.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
    for (const frame of frames) {
      let event: unknown;
      try {
        event = JSON.parse(frame.data);
      } catch {
        continue;
      }
      if (isRecord(event))
        onEvent(typeof event.type === 'string' ? event.type : frame.event, event);
    }
    if (done) return;
  }
}
