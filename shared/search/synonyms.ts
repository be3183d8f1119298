import { foldText } from './tokenize';

/*
 * Words users expect to mean the same thing in a note-taking app: asking where the "settings"
 * live should find the note titled "Configuration folder". Each group is a set of folded words
 * any of which stands for the others; both search engines OR a query word's synonyms into its
 * keyword lookup, and the answer gate counts a word as covered when a synonym is there.
 * Kept small and specific on purpose: a broad thesaurus drifts ("page" is not "note").
 */
const GROUPS: ReadonlyArray<readonly string[]> = [
  ['settings', 'setting', 'preferences', 'options'],
  ['folder', 'folders', 'directory', 'directories'],
  ['shortcut', 'shortcuts', 'hotkey', 'hotkeys', 'keybinding', 'keybindings'],
  ['delete', 'remove', 'erase'],
  ['restore', 'recover', 'undelete'],
  ['appearance', 'theme', 'themes', 'look'],
  ['impostazioni', 'preferenze', 'opzioni'],
  ['einstellungen', 'optionen'],
  ['parametres', 'preferences', 'reglages', 'options'],
];

/**
 * One-way: a user's word for something app-specific also finds the documentation's word, not
 * the other way round. "configuration" is a common word elsewhere (Cranfield's aircraft
 * configurations lost nDCG when it also meant "settings").
 */
const ALSO: ReadonlyArray<[readonly string[], readonly string[]]> = [
  [
    ['settings', 'setting', 'preferences'],
    ['configuration', 'config'],
  ],
  [['impostazioni', 'preferenze'], ['configurazione']],
  [['einstellungen'], ['konfiguration']],
  [['parametres', 'reglages'], ['configuration']],
];

const BY_WORD = new Map<string, string[]>();
const addAll = (word: string, more: readonly string[]) => {
  const others = more.filter((other) => other !== word);
  BY_WORD.set(word, [...new Set([...(BY_WORD.get(word) ?? []), ...others])]);
};
for (const group of GROUPS) {
  const folded = group.map(foldText);
  for (const word of folded) addAll(word, folded);
}
for (const [from, to] of ALSO) {
  for (const word of from.map(foldText)) addAll(word, to.map(foldText));
}

/** The synonyms of a folded query word (never the word itself); empty for most words. */
export function synonymsOf(term: string): readonly string[] {
  return BY_WORD.get(term) ?? [];
}
