/**
 * Svelte context key: whether Enter sends the chat message (true, the default) or makes a new
 * line (false: touch keyboards, where Shift+Enter is out of reach and Send is a tap away).
 * The chat view sets it from Obsidian's Platform; the composer reads it.
 */
export const ENTER_SENDS_CONTEXT = 'cairn:enter-sends';
