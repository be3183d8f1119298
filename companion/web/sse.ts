/**
 * Reads a Server-Sent Events body (`POST /api/v1/chat`) as it arrives. Only what the companion
 * sends is handled: `event:` and `data:` lines, frames ended by a blank line, `:` comment lines
 * (heartbeats) ignored. Chunks may split a frame anywhere, so text is buffered until a blank
 * line completes one.
 */
export interface SseFrame {
  event: string;
  data: string;
}

export class SseReader {
  private buffer = '';

  /** Feeds the next decoded chunk; returns every frame it completed. */
  push(chunk: string): SseFrame[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const frames: SseFrame[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = parseFrame(this.buffer.slice(0, end));
      if (frame !== null) frames.push(frame);
      this.buffer = this.buffer.slice(end + 2);
      end = this.buffer.indexOf('\n\n');
    }
    return frames;
  }
}

function parseFrame(text: string): SseFrame | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? null : { event, data: data.join('\n') };
}
