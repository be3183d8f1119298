import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';

/*
 * Which language a text is written in, and the stemmer for it. Both search engines (the
 * plugin's BM25F index and the companion's FTS5) use this so a note and a question in the same
 * language meet on the same stems (`Einstellungen` and `Einstellung` → `einstell`).
 *
 * A note's language is its front-matter `lang` when it has one (BCP 47: `de`, `fr-CA`, `zh-TW`),
 * else it is detected: by script for text written without Latin letters (Han + kana → ja, Han
 * alone → zh, Hangul → ko, Thai, Cyrillic → ru), by the share of each language's most common
 * function words for Latin text. Text too short or too mixed to tell is `undefined`, and gets
 * no language-specific stemming.
 */

/** Languages with a stemmer (Latin and Cyrillic scripts) or a script of their own. */
export type Language =
  | 'en'
  | 'de'
  | 'fr'
  | 'it'
  | 'es'
  | 'pt'
  | 'nl'
  | 'sv'
  | 'da'
  | 'no'
  | 'fi'
  | 'ru'
  | 'zh'
  | 'ja'
  | 'ko'
  | 'th';

const STEMMERS: Readonly<Partial<Record<Language, (word: string) => string>>> = {
  en: english,
  de: german,
  fr: french,
  it: italian,
  es: spanish,
  pt: portuguese,
  nl: dutch,
  sv: swedish,
  da: danish,
  no: norwegian,
  fi: finnish,
  ru: russian,
};

/** Frequent function words per language (folded: no accents), for detection only. */
const FUNCTION_WORDS: ReadonlyArray<[Language, ReadonlySet<string>]> = (
  [
    ['en', 'the and of to is in that it for you with on are this be can or not your'],
    ['de', 'der die das und ist nicht ein eine zu den mit sie fur auf sich dem des im auch wird'],
    ['fr', 'le la les et des est une un pour que dans qui pas sur vous du au avec ce sont'],
    ['it', 'il di che e la le un una per non sono con del della gli nel puoi questo come si'],
    ['es', 'el la de que y los las en un una por para con no es se del al como su'],
    ['pt', 'o a os as de que e do da em um uma para com nao se no na por voce'],
    ['nl', 'de het een en van is dat niet op te je met voor zijn ook als aan er'],
    ['sv', 'och att det som en ar pa for med inte den av till har om ett du kan'],
    ['da', 'og at det som en er pa for med ikke den af til har om et du kan'],
    ['no', 'og at det som en er pa for med ikke den av til har om et du kan'],
    ['fi', 'ja on ei se etta kun mita tai voit jos sen han ovat myos kuin'],
  ] as const
).map(([language, words]) => [language, new Set(words.split(' '))]);

/** Front-matter `lang` (BCP 47) → a Language, or undefined when none of ours. */
export function languageFromTag(tag: string | undefined): Language | undefined {
  if (tag === undefined) return undefined;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const aliases: Record<string, Language> = { nb: 'no', nn: 'no', dk: 'da' };
  const code = aliases[primary] ?? primary;
  return isLanguage(code) ? code : undefined;
}

function isLanguage(code: string): code is Language {
  return code in STEMMERS || code === 'zh' || code === 'ja' || code === 'ko' || code === 'th';
}

/** Latin text shorter than this many words is not guessed at. */
const MIN_LATIN_WORDS = 6;

/** At most this many characters are looked at: the opening of a note tells its language. */
const DETECT_CHARS = 4000;

/** The language `text` is written in, or undefined when it cannot tell. */
export function detectLanguage(text: string): Language | undefined {
  const sample = text.slice(0, DETECT_CHARS);
  const count = (pattern: RegExp) => sample.match(pattern)?.length ?? 0;
  const kana = count(/[\p{Script=Hiragana}\p{Script=Katakana}]/gu);
  const han = count(/\p{Script=Han}/gu);
  const hangul = count(/\p{Script=Hangul}/gu);
  const thai = count(/\p{Script=Thai}/gu);
  const cyrillic = count(/\p{Script=Cyrillic}/gu);
  const latin = count(/\p{Script=Latin}/gu);
  const scripts: Array<[Language, number]> = [
    ['ja', kana > 0 ? kana + han : 0],
    ['zh', kana === 0 ? han : 0],
    ['ko', hangul],
    ['th', thai],
    ['ru', cyrillic],
  ];
  const [script, letters] = scripts.sort((a, b) => b[1] - a[1])[0]!;
  // Characters of CJK scripts carry about a word each; Latin letters about a fifth of one.
  if (letters > 0 && letters * 3 >= latin) return script;
  const words = foldedWords(sample);
  if (words.length < MIN_LATIN_WORDS) return undefined;
  let best: Language | undefined;
  let bestHits = 0;
  let second = 0;
  for (const [language, set] of FUNCTION_WORDS) {
    let hits = 0;
    for (const word of words) if (set.has(word)) hits++;
    if (hits > bestHits) {
      second = bestHits;
      bestHits = hits;
      best = language;
    } else if (hits > second) second = hits;
  }
  // Enough function words and a clear lead over the runner-up: an English note misread as
  // Dutch would be stemmed wrongly (measured: it cost nDCG on obsidian-help-en), while a note
  // left undetected is only stemmed as English. (Danish and Norwegian share most of theirs;
  // either stems such text acceptably.)
  return bestHits >= 2 && bestHits >= second * 1.5 && bestHits > second ? best : undefined;
}

/**
 * Whether `text` uses a function word of `language` that is not also an English one: enough to
 * tell a question too short for detectLanguage ("Wo speichert Obsidian die Einstellungen?").
 */
export function hasFunctionWordsOf(text: string, language: Language): boolean {
  const own = FUNCTION_WORDS.find(([each]) => each === language)?.[1];
  const english = FUNCTION_WORDS.find(([each]) => each === 'en')![1];
  if (own === undefined) return false;
  return foldedWords(text).some((word) => own.has(word) && !english.has(word));
}

/**
 * The frequent function words of `language` (folded), empty for languages without a list:
 * words that say nothing of what a text is about ("come", "si", "la").
 */
export function functionWordsOf(language: Language | undefined): ReadonlySet<string> {
  return FUNCTION_WORDS.find(([each]) => each === language)?.[1] ?? NO_WORDS;
}

const NO_WORDS: ReadonlySet<string> = new Set();

function foldedWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((word) => word.length > 0);
}

/** Every language with a stemmer. */
export const STEMMED_LANGUAGES: readonly Language[] = Object.keys(STEMMERS) as Language[];

/** Whether words of `language` can be stemmed. */
export function hasStemmer(language: Language): boolean {
  return STEMMERS[language] !== undefined;
}

const cache = new Map<string, string>();

/**
 * The stem of an already folded, lower-cased word in `language`; the word itself for languages
 * without a stemmer, for numbers and codes, and for words of another script.
 */
export function stemWord(word: string, language: Language | undefined): string {
  const stemmer = language === undefined ? undefined : STEMMERS[language];
  if (stemmer === undefined || !/^\p{L}+$/u.test(word)) return word;
  if (language !== 'ru' && !/^\p{Script=Latin}+$/u.test(word)) return word;
  const key = `${language}:${word}`;
  let stem = cache.get(key);
  if (stem === undefined) {
    stem = stemmer(word);
    if (cache.size > 100_000) cache.clear();
    cache.set(key, stem);
  }
  return stem;
}
