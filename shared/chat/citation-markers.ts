/**
 * Keeps an LLM's citation markers honest while its text streams: `[n]` (or `[n, m]`) must name
 * one of the passages it was given. Markers naming no passage are dropped; other brackets
 * (`[link]`, `[ ]`) pass through unchanged. Text is held back only from a `[` until it is known
 * whether a marker follows, so streaming stays streaming.
 */

/** A marker is short; anything longer after `[` is ordinary text. */
const MAX_MARKER_LENGTH = 16;

export class CitationMarkerFilter {
  private pending = '';
  /** Passage numbers (1-based) the text has cited so far. */
  readonly cited = new Set<number>();

  constructor(private readonly passageCount: number) {}

  /** Feeds a piece of streamed text; returns what can be shown now. */
  push(text: string): string {
    let out = '';
    for (const char of text) {
      if (this.pending === '') {
        if (char === '[') this.pending = char;
        else out += char;
        continue;
      }
      this.pending += char;
      if (char === ']') {
        out += this.resolve(this.pending);
        this.pending = '';
      } else if (!/[\d,\s]/.test(char) || this.pending.length > MAX_MARKER_LENGTH) {
        // Not a marker after all; a new `[` may start one.
        const released = this.pending.slice(0, -1);
        this.pending = '';
        out += released;
        out += this.push(char);
      }
    }
    return out;
  }

  /** The text still held back, at the end of the stream. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }

  private resolve(bracketed: string): string {
    const inner = bracketed.slice(1, -1);
    if (!/^\s*\d+(?:\s*,\s*\d+)*\s*$/.test(inner)) return bracketed;
    const valid = inner
      .split(',')
      .map((part) => Number(part.trim()))
      .filter((n) => Number.isInteger(n) && n >= 1 && n <= this.passageCount);
    for (const n of valid) this.cited.add(n);
    return valid.length === 0 ? '' : `[${valid.join(', ')}]`;
  }
}
