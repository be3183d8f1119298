export type EveryPhraseResult = { ok: true; rrule: string } | { ok: false; message: string };

/** Turns the text after `every ` (e.g. `monday 09:00`) into a normalised RRULE. */
export function parseEveryPhrase(phrase: string): EveryPhraseResult {
  return { ok: false, message: `every-phrase: not implemented yet ("${phrase}")` };
}
