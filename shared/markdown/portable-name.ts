/*
 * One rule for the names of files and folders Cairn creates in the vault: a name that every
 * platform Obsidian runs on (Windows, macOS, Linux, iOS, Android) and every sync client can
 * store and show unchanged. A vault written on Linux with `aux.md` or `notes?` in it breaks
 * sync to Windows; a right-to-left override makes `gpj.exe` read as `exe.jpg`.
 */

/** Windows device names, reserved with any extension (`con`, `CON.md`, `com1.txt`). */
export const WINDOWS_RESERVED_STEM = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** Longest name most file systems store (ext4, APFS, NTFS: 255 bytes or UTF-16 units). */
export const MAX_NAME_BYTES = 255;

/** Characters Windows (and so OneDrive, Syncthing to Windows, exFAT cards) refuses in names. */
const WINDOWS_FORBIDDEN = /[*?<>|":\\/]/;

/**
 * Bidirectional overrides and isolates, and invisible marks that make two names look alike
 * (zero-width space, byte-order mark). Zero-width joiners stay: emoji sequences use them.
 */
const DECEPTIVE = /[\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/**
 * Why `name` (one path segment) cannot be created portably, or null when it can. Names are
 * also checked in their NFKC form, where a full-width dot `．` or solidus `／` becomes the
 * ASCII one, because some systems fold them.
 */
export function portableNameProblem(name: string): string | null {
  const shown = JSON.stringify(name);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return `${shown} contains a control character`;
  if (DECEPTIVE.test(name)) {
    return `${shown} contains an invisible or text-direction character (such as a right-to-left override)`;
  }
  const bytes = utf8Length(name);
  if (bytes > MAX_NAME_BYTES) {
    return `${shown} is ${bytes} bytes long in UTF-8; names are at most ${MAX_NAME_BYTES} bytes`;
  }
  for (const form of new Set([name, name.normalize('NFKC')])) {
    const folded = form === name ? '' : ' (once full-width characters are folded)';
    const bad = WINDOWS_FORBIDDEN.exec(form);
    if (bad) return `${shown} contains ${JSON.stringify(bad[0])}${folded}, which Windows refuses`;
    if (form === '.' || form === '..' || form.startsWith('.')) {
      return `${shown} starts with a dot${folded}: a hidden name Obsidian does not show`;
    }
    if (/[. ]$/.test(form)) {
      return `${shown} ends with a dot or space${folded}, which Windows drops`;
    }
    const stem = form.split('.')[0]?.trimEnd() ?? '';
    if (WINDOWS_RESERVED_STEM.test(stem)) {
      return `${shown} is a reserved device name on Windows${folded}`;
    }
  }
  return null;
}

/** Bytes of `text` in UTF-8 (shared code has no TextEncoder in every runtime's types). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
