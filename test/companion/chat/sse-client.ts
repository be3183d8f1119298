import type { ChatEvent } from '../../../shared/protocol/chat';
import { TEST_TOKEN } from '../helpers/app';

/** One frame of a Server-Sent Events stream as the wire carried it. */
export interface SseFrame {
  /** `event:` field, or undefined for comment-only frames (heartbeats). */
  event?: string;
  data?: string;
  comments: string[];
}

/** Splits SSE text into frames (blank-line separated), keeping comment lines. */
export function parseSse(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: SseFrame = { comments: [] };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) frame.event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) frame.data = line.slice('data: '.length);
      }
      return frame;
    });
}

/** The chat events of a stream, checking that every `event:` names its data's `type`. */
export function chatEvents(text: string): ChatEvent[] {
  return parseSse(text)
    .filter((frame) => frame.data !== undefined)
    .map((frame) => {
      const event = JSON.parse(frame.data ?? '') as ChatEvent;
      if (event.type !== frame.event) {
        throw new Error(`event: ${frame.event} carries data of type ${event.type}`);
      }
      return event;
    });
}

/** The assistant's text: every `token` event joined. */
export function tokenText(events: readonly ChatEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.text : '')).join('');
}

/** A live chat request over real HTTP; `read()` collects the stream until the server ends it. */
export async function openChat(
  baseUrl: string,
  body: unknown,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<{ response: Response; read: () => Promise<string>; firstChunk: () => Promise<string> }> {
  const response = await fetch(`${baseUrl}/api/v1/chat`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      'content-type': 'application/json',
      ...options.headers,
    },
    body: JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    response,
    firstChunk: async () => {
      const { value } = (await reader?.read()) ?? {};
      const chunk = value === undefined ? '' : decoder.decode(value, { stream: true });
      text += chunk;
      return chunk;
    },
    read: async () => {
      if (reader === undefined) return text;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text + decoder.decode();
    },
  };
}
