/**
 * Dates you can trust (docs/search.md, "Source dates"): each citation carries its source's date
 * (front-matter `updated`, else `created`, else the file's modification time); an answer warns
 * when its newest source is more than a year old, and when two sources give different numbers
 * for the same thing it says so, naming both, newest first.
 */
import type { Citation, CitationDateSource } from '../protocol/citation';
import { keyedNumbers } from './claim-check';

export const STALE_AFTER_DAYS = 365;
const DAY_MS = 86_400_000;

/** The citation date fields for a source: the first of updated, created, modified that is set. */
export function sourceDate(times: {
  updatedMs?: number;
  createdMs?: number;
  mtimeMs?: number;
}): { date: string; date_source: CitationDateSource } | undefined {
  const pick: Array<[number | undefined, CitationDateSource]> = [
    [times.updatedMs, 'updated'],
    [times.createdMs, 'created'],
    [times.mtimeMs, 'modified'],
  ];
  for (const [ms, source] of pick) {
    if (ms !== undefined && Number.isFinite(ms) && ms > 0) {
      return { date: new Date(ms).toISOString().slice(0, 10), date_source: source };
    }
  }
  return undefined;
}

/** Notes to show under an answer about its sources' dates; empty when there is nothing to say. */
export function sourceDateNotes(citations: readonly Citation[], now: number): string[] {
  const notes: string[] = [];
  const dated = citations.filter((c): c is Citation & { date: string } => c.date !== undefined);
  if (dated.length > 0) {
    const newest = dated.reduce((a, b) => (a.date >= b.date ? a : b));
    const age = now - Date.parse(`${newest.date}T00:00:00Z`);
    if (age > STALE_AFTER_DAYS * DAY_MS) {
      notes.push(
        `The newest of these sources (${newest.title}) is from ${newest.date}, over a year ago: check it still holds.`,
      );
    }
  }
  notes.push(...disagreements(citations));
  return notes;
}

/**
 * Two notes giving different numbers for the same thing: the numbers count the same word
 * ("€6,200 a month", "€6,800 a month") or follow the same word, and the two passages share
 * another content word (the "lease"); a number one passage also has is no disagreement.
 */
function disagreements(citations: readonly Citation[]): string[] {
  const notes: string[] = [];
  const seen = new Set<string>();
  const facts = citations.map((citation, index) => ({
    citation,
    n: index + 1,
    ...keyedNumbers(citation.excerpt),
  }));
  for (const [i, a] of facts.entries()) {
    for (const b of facts.slice(i + 1)) {
      if (a.citation.path === b.citation.path) continue;
      const aValues = new Set(a.numbers.map((n) => n.value));
      const bValues = new Set(b.numbers.map((n) => n.value));
      for (const x of a.numbers) {
        if (bValues.has(x.value)) continue;
        const y = b.numbers.find(
          (n) =>
            !aValues.has(n.value) &&
            ((x.after !== undefined && n.after === x.after) ||
              (x.before !== undefined && n.before === x.before)),
        );
        if (y === undefined) continue;
        const keys = new Set([x.after, x.before, y.after, y.before]);
        const shared = [...a.stems].some((stem) => b.stems.has(stem) && !keys.has(stem));
        const id = `${a.n}|${b.n}`;
        if (!shared || seen.has(id)) continue;
        seen.add(id);
        const said = [a, b]
          .sort((p, q) => (q.citation.date ?? '').localeCompare(p.citation.date ?? ''))
          .map(
            (side) =>
              `“${clip(side.citation.excerpt)}” (${side.citation.title} [${side.n}]${side.citation.date ? `, ${side.citation.date}` : ''})`,
          )
          .join(', but ');
        notes.push(`Your notes disagree, newest first: ${said}.`);
      }
    }
  }
  return notes;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** The notes as the lines shown under an answer. */
export function formatSourceNotes(notes: readonly string[]): string {
  return notes.length === 0 ? '' : `\n\n${notes.map((note) => `_(${note})_`).join('\n')}`;
}
