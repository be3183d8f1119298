/**
 * Decisions written in notes (docs/search.md, "Decisions"), found when a note is indexed:
 * - ADR files (a `Decision` or `Decision Outcome` heading beside `Status` or `Context`): the
 *   decision section's first paragraph, the status, the considered options not chosen;
 * - `Decision:` / `Decided:` / `Agreed:` lines, and `Rejected:` lines, which name an alternative
 *   of the decision above them in the same section (or below, when none is above);
 * - sentences: "we decided to …", "we agreed to …", "we chose …", "we'll go with …"; their
 *   "instead of …" / "rather than …" part is a rejected alternative, and "considered X but …"
 *   (or "X was rejected") rejects X for the decision nearest above in the section.
 * Each decision keeps the lines it came from. Pure: the indexer stores them (migration 012).
 */
import { normaliseNewlines, scanBlocks } from './markdown-blocks';

export interface ExtractedDecision {
  text: string;
  rejected: string[];
  /** `adr` for an ADR file's decision, `line` for `Decision:`-style lines, `sentence` otherwise. */
  kind: 'adr' | 'line' | 'sentence';
  /** An ADR's status ("Accepted", "Superseded by ADR-0012"). */
  status?: string;
  /** A date written in the ADR itself (`Date: 2020-05-01`), YYYY-MM-DD. */
  date?: string;
  heading?: string;
  /** 1-based file lines. */
  startLine: number;
  endLine: number;
}

interface Line {
  text: string;
  /** 1-based file line. */
  line: number;
  heading?: string;
  /** The headings above, outermost first (the last is `heading`). */
  path: string[];
}

const MAX_TEXT = 400;
const DECISION_LINE =
  /^\s*(?:[-*+]\s+)?(?:\*\*|__)?(decision|decided|agreed|resolution)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i;
const REJECTED_LINE =
  /^\s*(?:[-*+]\s+)?(?:\*\*|__)?(rejected|not chosen|declined)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i;
const DECISION_SENTENCE =
  /\b(?:we|i|the team|they|everyone)\s+(?:have\s+|had\s+|finally\s+|all\s+)?(?:decided|agreed|chose|opted|settled on|went with|will go with|'ll go with|are going with)\b/i;
const INSTEAD = /\b(?:instead of|rather than|over)\s+([^,.;]+)/i;
const CONSIDERED = /\b(?:we\s+)?considered\s+(.+?)\s*(?:,\s*)?\bbut\b/i;
const WAS_REJECTED = /^(.+?)\s+(?:was|were|got)\s+(?:rejected|ruled out|dropped)\b/i;

/** The decisions of a note body; `bodyStartLine` is the file line of the body's first line. */
export function extractDecisions(body: string, bodyStartLine = 1): ExtractedDecision[] {
  const lines = linesWithHeadings(body, bodyStartLine);
  const adr = adrDecision(lines);
  const decisions: ExtractedDecision[] = adr === undefined ? [] : [adr];
  const pendingRejected: Array<{ text: string; heading?: string }> = [];
  const lastInSection = (heading: string | undefined) =>
    [...decisions].reverse().find((d) => d.kind !== 'adr' && d.heading === heading);
  for (const { text: raw, line, heading } of lines) {
    const text = plain(raw);
    if (text === '') continue;
    const decisionLine = DECISION_LINE.exec(raw);
    if (decisionLine !== null) {
      const decision = make(plain(decisionLine[2] ?? ''), 'line', line, heading);
      const instead = INSTEAD.exec(decision.text);
      if (instead?.[1]) decision.rejected.push(clean(instead[1]));
      for (const rejected of pendingRejected.splice(0).filter((r) => r.heading === heading)) {
        decision.rejected.push(rejected.text);
      }
      decisions.push(decision);
      continue;
    }
    const rejectedLine = REJECTED_LINE.exec(raw);
    if (rejectedLine !== null) {
      const what = clean(plain(rejectedLine[2] ?? ''));
      const target = lastInSection(heading);
      if (target !== undefined) {
        target.rejected.push(what);
        target.endLine = Math.max(target.endLine, line);
      } else pendingRejected.push({ text: what, ...(heading ? { heading } : {}) });
      continue;
    }
    for (const sentence of sentencesOf(text)) {
      if (DECISION_SENTENCE.test(sentence)) {
        const decision = make(sentence, 'sentence', line, heading);
        const instead = INSTEAD.exec(sentence);
        if (instead?.[1]) decision.rejected.push(clean(instead[1]));
        decisions.push(decision);
        continue;
      }
      const considered = CONSIDERED.exec(sentence) ?? WAS_REJECTED.exec(sentence);
      if (considered?.[1]) {
        const target = lastInSection(heading);
        const what = clean(considered[1]);
        if (target !== undefined) {
          target.rejected.push(what);
          target.endLine = Math.max(target.endLine, line);
        } else pendingRejected.push({ text: what, ...(heading ? { heading } : {}) });
      }
    }
  }
  // Rejections with no decision in their section stand alone: still something decided.
  for (const rejected of pendingRejected) {
    const line = lines.find((l) => plain(l.text).includes(rejected.text))?.line ?? bodyStartLine;
    decisions.push({
      ...make(`Rejected: ${rejected.text}`, 'line', line, rejected.heading),
      rejected: [rejected.text],
    });
  }
  return decisions;
}

function make(
  text: string,
  kind: ExtractedDecision['kind'],
  line: number,
  heading: string | undefined,
): ExtractedDecision {
  return {
    text: clip(text),
    rejected: [],
    kind,
    ...(heading === undefined ? {} : { heading }),
    startLine: line,
    endLine: line,
  };
}

/** The ADR's decision: the Decision section's first paragraph, with status, date, options. */
function adrDecision(lines: readonly Line[]): ExtractedDecision | undefined {
  const key = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^a-z ]/g, '')
      .trim();
  const under = (pattern: RegExp) =>
    lines.filter((l) => l.heading !== undefined && pattern.test(key(l.heading)));
  const decisionLines = under(/^(?:the )?decision(?:s| outcome)?$/).filter(
    (l) => plain(l.text) !== '',
  );
  const isAdr =
    decisionLines.length > 0 &&
    lines.some((l) => l.heading !== undefined && /^(status|context)\b/.test(key(l.heading)));
  const first = decisionLines[0];
  if (!isAdr || first === undefined) return undefined;
  const paragraph: Line[] = [];
  for (const line of decisionLines) {
    if (paragraph.length > 0 && line.line !== (paragraph.at(-1)?.line ?? 0) + 1) break;
    paragraph.push(line);
  }
  const statusLine = lines
    .map((l) => /^\s*(?:[-*]\s*)?(?:\*\*|__)?status(?:\*\*|__)?\s*[:：]\s*(.+)$/i.exec(l.text)?.[1])
    .find((t) => t !== undefined);
  const status =
    statusLine !== undefined
      ? plain(statusLine)
      : under(/^status$/)
          .map((l) => plain(l.text))
          .find((t) => t !== '');
  const date = lines
    .map((l) => /^\s*(?:[-*]\s*)?date\s*[:：]\s*(\d{4}-\d{2}-\d{2})/i.exec(l.text)?.[1])
    .find((d) => d !== undefined);
  const chosen = paragraph.map((l) => plain(l.text)).join(' ');
  const alternatives =
    /^(considered options|options considered|alternatives|alternatives considered|options|rejected options|rejected alternatives)$/;
  const rejected: string[] = [];
  for (const line of lines) {
    const depth = line.path.findIndex((h) => alternatives.test(key(h)));
    if (depth < 0) continue;
    // A sub-heading names an alternative; so does a list item right under the section.
    const option =
      line.text === '' && line.path.length > depth + 1 && line.path.length === depth + 2
        ? line.heading
        : line.path.length === depth + 1
          ? /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/.exec(line.text)?.[1]
          : undefined;
    if (option === undefined) continue;
    const name = clean(plain(option));
    if (name !== '' && !chosen.toLowerCase().includes(name.toLowerCase())) rejected.push(name);
  }
  return {
    text: clip(chosen),
    rejected,
    kind: 'adr',
    ...(status === undefined ? {} : { status: clip(status) }),
    ...(date === undefined ? {} : { date }),
    heading: first.heading ?? 'Decision',
    startLine: first.line,
    endLine: paragraph.at(-1)?.line ?? first.line,
  };
}

/** The body's lines with the headings they sit under; fenced code is left out. */
function linesWithHeadings(body: string, bodyStartLine: number): Line[] {
  const text = normaliseNewlines(body);
  const all = text.split('\n');
  const out: Line[] = [];
  const stack: Array<{ level: number; heading: string }> = [];
  for (const block of scanBlocks(text)) {
    if (block.kind === 'heading') {
      const level = block.level ?? 1;
      while (stack.length > 0 && (stack.at(-1)?.level ?? 0) >= level) stack.pop();
      stack.push({ level, heading: block.heading ?? '' });
      // A heading is a line too: an alternative may be named by one.
      out.push({
        text: '',
        line: bodyStartLine + block.firstLine,
        heading: block.heading ?? '',
        path: stack.map((h) => h.heading),
      });
      continue;
    }
    if (block.kind === 'code') continue;
    const heading = stack.at(-1)?.heading;
    for (let i = block.firstLine; i <= block.lastLine; i++) {
      out.push({
        text: all[i] ?? '',
        line: bodyStartLine + i,
        ...(heading === undefined ? {} : { heading }),
        path: stack.map((h) => h.heading),
      });
    }
  }
  return out;
}

function sentencesOf(text: string): string[] {
  return text
    .replace(/([.!?])\s+(?=[A-Z"“])/g, '$1\n')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Markdown marks, wiki-link brackets and list bullets removed; spaces collapsed. */
function plain(text: string): string {
  return text
    .replace(/^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)/, '')
    .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2')
    .replace(/\[\[([^\]]+)\]\]/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An alternative's words without the "because …" that follows. */
function clean(text: string): string {
  return clip(
    text
      .replace(/\s*(?:,\s*)?\b(?:because|since|as|due to)\b.*$/i, '')
      .replace(/[.;:,]+$/, '')
      .trim(),
  );
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
