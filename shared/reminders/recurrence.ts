export type RuleCheck = { ok: true; rrule: string } | { ok: false; message: string };

/** Checks an RRULE (with or without the `RRULE:` prefix) and returns it normalised. */
export function validateRrule(text: string): RuleCheck {
  return { ok: false, message: `recurrence: not implemented yet ("${text}")` };
}

/** The next `n` occurrences strictly after `after` (epoch ms), as epoch ms. */
export function nextOccurrences(
  _rule: { rrule: string; start: string },
  _after: number,
  _zone: string,
  _n: number,
): number[] {
  return [];
}
