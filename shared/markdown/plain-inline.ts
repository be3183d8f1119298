/**
 * A line of Markdown as a person reads it, for places that show plain text: a reminder's title
 * on the phone, in a notification or in a calendar. Links show their label (`[[Note|label]]`,
 * `[text](url)`), a wikilink without a label its target, and emphasis, highlight,
 * strike-through and code markers go. Everything else is left as written: a title is never
 * made up, only unwrapped. Underscores are markers only around a word (`_word_`), so
 * `snake_case` and `file_name.md` stay as they are. No lookbehind: older iOS WebViews lack it.
 */
export function plainInline(text: string): string {
  return text
    .replace(/!?\[\[([^\]|#^]*)(?:[#^][^\]|]*)?\|([^\]]+)\]\]/g, '$2')
    .replace(/!?\[\[([^\]|]+)\]\]/g, (_, target: string) => target.replace(/#\^?/, ' > '))
    .replace(/!?\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*\)/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/(\*\*|__|~~|==)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/(^|[^\w*])\*(\S(?:[^*]*?\S)?)\*(?!\*)/g, '$1$2')
    .replace(/(^|\W)_(\S(?:[^_]*?\S)?)_(?!\w)/g, '$1$2');
}
