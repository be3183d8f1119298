import { foldText } from './tokenize';

/*
 * Words users expect to mean the same thing in a note-taking app: asking where the "settings"
 * live should find the note titled "Configuration folder". Each group is a set of folded words
 * any of which stands for the others; both search engines OR a query word's synonyms into its
 * keyword lookup, and the answer gate counts a word as covered when a synonym is there.
 * Kept small and specific on purpose: a broad thesaurus drifts ("page" is not "note").
 */
const GROUPS: ReadonlyArray<readonly string[]> = [
  ['settings', 'setting', 'configuration', 'config', 'preferences', 'options'],
  ['folder', 'folders', 'directory', 'directories'],
  ['shortcut', 'shortcuts', 'hotkey', 'hotkeys', 'keybinding', 'keybindings'],
  ['delete', 'remove', 'erase'],
  ['restore', 'recover', 'undelete'],
  ['appearance', 'theme', 'themes', 'look'],
  ['impostazioni', 'configurazione', 'preferenze', 'opzioni'],
  ['einstellungen', 'konfiguration', 'optionen'],
  ['parametres', 'configuration', 'preferences', 'reglages', 'options'],
];

const BY_WORD = new Map<string, string[]>();
for (const group of GROUPS) {
  const folded = group.map(foldText);
  for (const word of folded) {
    const others = folded.filter((other) => other !== word);
    BY_WORD.set(word, [...new Set([...(BY_WORD.get(word) ?? []), ...others])]);
  }
}

/** The synonyms of a folded query word (never the word itself); empty for most words. */
export function synonymsOf(term: string): readonly string[] {
  return BY_WORD.get(term) ?? [];
}
