import { describe, expect, it } from 'vitest';
import { formatSseEvent } from '../../../shared/protocol/chat';
import { SseReader } from '../../../companion/web/sse';

describe('SseReader (the phone chat stream)', () => {
  const stream =
    formatSseEvent({ type: 'token', text: 'Fee is ' }) +
    ': heartbeat\n\n' +
    formatSseEvent({ type: 'token', text: '€90.\n' }) +
    formatSseEvent({ type: 'done', conversation: 'Cairn/Chats/visa.md' });

  it('reads the frames the companion writes, skipping heartbeats', () => {
    const frames = new SseReader().push(stream);
    expect(frames.map((frame) => frame.event)).toEqual(['token', 'token', 'done']);
    expect(JSON.parse(frames[1]!.data)).toEqual({ type: 'token', text: '€90.\n' });
  });

  it('gives the same frames whatever the chunk boundaries are', () => {
    for (const size of [1, 2, 7, 13]) {
      const reader = new SseReader();
      const frames = [];
      for (let at = 0; at < stream.length; at += size) {
        frames.push(...reader.push(stream.slice(at, at + size)));
      }
      expect(frames, `chunks of ${size}`).toEqual(new SseReader().push(stream));
    }
  });

  it('accepts CRLF line ends and joins multi-line data', () => {
    expect(new SseReader().push('event: x\r\ndata: a\r\ndata: b\r\n\r\n')).toEqual([
      { event: 'x', data: 'a\nb' },
    ]);
  });
});
