/** How a file's bytes became text, and what had to be repaired on the way. */
export type DecodedText =
  | { readonly ok: true; readonly text: string; readonly warnings: string[] }
  | { readonly ok: false; readonly reason: string };

/** Bytes sniffed for NULs: a text file never has one, nearly every binary format does early on. */
const SNIFF_BYTES = 8192;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/**
 * Decodes a note's bytes as UTF-8. A binary file (a NUL byte near the start: an image or an
 * archive saved as `.md`) is refused. Invalid UTF-8 (a note saved as Latin-1, a truncated
 * multi-byte sequence) is decoded anyway with U+FFFD in place of the bad bytes, and a warning
 * names the first bad line so the user can find it.
 */
export function decodeNoteBytes(bytes: Uint8Array): DecodedText {
  const nul = bytes.subarray(0, SNIFF_BYTES).indexOf(0);
  if (nul !== -1) {
    return {
      ok: false,
      reason: `binary file, not Markdown text (NUL byte at offset ${nul})`,
    };
  }
  try {
    return { ok: true, text: strictUtf8.decode(bytes), warnings: [] };
  } catch {
    const bad = firstInvalidUtf8Offset(bytes);
    const line = bad === -1 ? 1 : lineAt(bytes, bad);
    return {
      ok: true,
      text: lenientUtf8.decode(bytes),
      warnings: [
        `line ${line}: invalid UTF-8 (byte offset ${bad}); bad bytes were replaced with U+FFFD. Re-save the note as UTF-8.`,
      ],
    };
  }
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i]!;
    let length: number;
    let min: number;
    if (byte < 0x80) {
      i++;
      continue;
    } else if (byte >= 0xc2 && byte <= 0xdf) {
      length = 2;
      min = 0x80;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      length = 3;
      min = 0x800;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      length = 4;
      min = 0x10000;
    } else {
      return i;
    }
    if (i + length > bytes.length) return i;
    let codePoint = byte & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      return i;
    }
    i += length;
  }
  return -1;
}
