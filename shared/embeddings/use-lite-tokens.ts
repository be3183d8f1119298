/**
 * Turns text into USE-lite token ids, keeping only what the model reads.
 *
 * The USE-lite graph itself ignores every token after the 128th (measured: vectors for 128 and
 * 2,000 tokens of the same text are bit-identical), so tokenizing further is wasted work. It is
 * also expensive work: the SentencePiece port in `@tensorflow-models/universal-sentence-encoder`
 * copies the rest of the string at every position, so its cost grows with the square of the input
 * length (20 kB took ~0.9 s here). We therefore tokenize short segments, cut at spaces, until the
 * model's 128 tokens are covered. Segments of ~256 characters rather than 1,024 cut tokenizing an
 * ~800-character chunk from ~4 ms to ~1.2 ms of CPU (600 obsidian-help-en chunks; the graph
 * itself costs ~55 ms per chunk), with the same ids for 599 of those 600 chunks.
 *
 * Cutting at a space does not change the best score: no vocabulary piece holds the word separator
 * `▁` anywhere but at its start, so the best segmentation always breaks before each `▁`, and the
 * Viterbi search decomposes exactly at those points. What can change is which of several equally
 * scored segmentations wins: a run of repeated punctuation (a Markdown table rule `|-----|`)
 * splits into pieces of the same total score in several ways, and the tokenizer's floating-point
 * sums break those ties differently from a different starting point. The one chunk of 600
 * affected above got a vector with cosine 0.99996 to the one from 1,024-character segments.
 */

/** The model reads at most this many tokens per text; later ones do not change the vector. */
export const USE_LITE_MAX_TOKENS = 128;

/** How many characters to tokenize at a time while looking for the first 128 tokens. */
export const USE_LITE_SEGMENT_CHARS = 256;

/**
 * A run without spaces (a URL, a table rule) is followed this far before it is cut mid-word. A
 * mid-word cut changes tokens (the second half starts a new word), so the reach is generous:
 * runs this long are rare in notes.
 */
export const USE_LITE_HARD_CUT_CHARS = 1_024;

/** What the USE tokenizer offers; kept narrow so tests can reason about it. */
export interface SentencePieceEncoder {
  encode(text: string): number[];
}

/**
 * The first {@link USE_LITE_MAX_TOKENS} token ids of `text`, never empty: a text with no tokens
 * (the empty string) is encoded as a single space, so every input gets a real, unit-length vector
 * and the model never drops a row (it silently does for trailing empty rows).
 */
export function useLiteTokenIds(
  encoder: SentencePieceEncoder,
  text: string,
  maxTokens = USE_LITE_MAX_TOKENS,
): number[] {
  const ids: number[] = [];
  let start = 0;
  while (start < text.length && ids.length < maxTokens) {
    const end = segmentEnd(text, start);
    const segment = text.slice(start, end);
    if (segment.length > 0) ids.push(...encoder.encode(segment));
    // The separating space is dropped: the encoder puts `▁` before every segment by itself.
    start = text.charCodeAt(end) === SPACE ? end + 1 : end;
  }
  if (ids.length === 0) return encoder.encode(' ').slice(0, maxTokens);
  return ids.length > maxTokens ? ids.slice(0, maxTokens) : ids;
}

const SPACE = 0x20;

/**
 * Where the segment starting at `start` ends: at the last space within a segment's length, else
 * at the last space within the hard-cut reach, else a hard cut.
 */
function segmentEnd(text: string, start: number): number {
  const preferred = start + USE_LITE_SEGMENT_CHARS;
  if (preferred >= text.length) return text.length;
  const space = text.lastIndexOf(' ', preferred);
  if (space > start) return space;
  const limit = start + USE_LITE_HARD_CUT_CHARS;
  if (limit >= text.length) return text.length;
  const farSpace = text.lastIndexOf(' ', limit);
  if (farSpace > start) return farSpace;
  // No space in reach (a URL, a base64 blob): cut anyway, but never inside a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
