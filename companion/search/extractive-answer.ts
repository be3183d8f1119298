import type { Citation } from '../../shared/protocol/citation';
import { bestExcerpt } from '../../shared/search';
import type { RankedChunk } from './hybrid-search';
import {
  isRelevant,
  questionNames,
  relevanceOf,
  termCoverage,
} from '../../shared/search/answer-gate';
import type { RelevanceQuery, RelevanceThresholds } from '../../shared/search/answer-gate';

/*
 * The default answer (docs/search.md): no generation, only the sentences of the retrieved chunks that
 * best match the question, quoted, each followed by the marker of its own citation, whose
 * excerpt is that sentence and whose lines are the sentence's lines. When no retrieved chunk is
 * relevant (see shared/search/answer-gate.ts) the answer says so instead of quoting the least bad match.
 */

export interface Passage {
  /** The quoted sentence(s), cleaned of Markdown, at most 240 characters. */
  text: string;
  citation: Citation;
}

export interface ExtractiveAnswer {
  answer: string;
  citations: Citation[];
  passages: Passage[];
  /** False when nothing relevant was found. */
  found: boolean;
  /**
   * How sure the answer is, 0..1 on the relevance scale of shared/search/answer-gate.ts: the best quoted
   * chunk's relevance (≥ 0.5 when found); below 0.5 when declined (the best chunk's).
   */
  confidence: number;
}

export interface ExtractiveOptions {
  /** Quoted passages at most (default 5). */
  maxPassages?: number;
  /** Passages per chunk at most (default 2). */
  maxPerChunk?: number;
  thresholds?: RelevanceThresholds;
  /** The embedding model behind the hits' vector scores (see shared/search/answer-gate.ts). */
  model?: string;
  /** Key-term weights of `terms` (answer-gate.ts keyTermWeights); default equal. */
  weights?: readonly number[];
}

interface Sentence {
  start: number;
  end: number;
}

interface Candidate {
  hit: RankedChunk;
  hitRank: number;
  sentence: Sentence;
  coverage: number;
}

export function nothingFoundAnswer(question: string): string {
  const shown = question.trim().replace(/\s+/g, ' ');
  const quoted = shown.length > 120 ? `${shown.slice(0, 119)}…` : shown;
  return `I found nothing in your notes that answers “${quoted}”.`;
}

export function extractiveAnswer(
  question: string,
  hits: readonly RankedChunk[],
  terms: readonly string[],
  options: ExtractiveOptions = {},
): ExtractiveAnswer {
  const maxPassages = options.maxPassages ?? 5;
  const maxPerChunk = options.maxPerChunk ?? 2;
  const query: RelevanceQuery = {
    terms,
    names: questionNames(question, terms),
    ...(options.weights === undefined ? {} : { weights: options.weights }),
    ...(options.model === undefined ? {} : { model: options.model }),
  };
  const relevant = hits.filter((hit) => isRelevant(hit, query, options.thresholds));
  const best = (list: readonly RankedChunk[]) =>
    list.reduce((top, hit) => Math.max(top, relevanceOf(hit, query, options.thresholds)), 0);
  const nothingFound = (): ExtractiveAnswer => ({
    answer: nothingFoundAnswer(question),
    citations: [],
    passages: [],
    found: false,
    confidence: Math.min(best(hits), 0.499),
  });
  if (relevant.length === 0) return nothingFound();

  const candidates: Candidate[] = [];
  relevant.forEach((hit, hitRank) => {
    const sentences = sentencesOf(hit.chunk.text).filter(
      (sentence) => !isWithdrawn(hit.chunk.text.slice(sentence.start, sentence.end)),
    );
    const scored = sentences.map((sentence) => ({
      hit,
      hitRank,
      sentence,
      coverage: termCoverage(
        terms,
        hit.chunk.text.slice(sentence.start, sentence.end),
        options.weights,
      ),
    }));
    const matching = scored.filter((candidate) => candidate.coverage > 0);
    // A chunk found by meaning alone (no term in any sentence) still offers its opening.
    const offered = matching.length > 0 ? matching : scored.slice(0, 1);
    offered
      .sort((a, b) => b.coverage - a.coverage || a.sentence.start - b.sentence.start)
      .slice(0, maxPerChunk)
      .forEach((candidate) => candidates.push(candidate));
  });
  // Best coverage first; among equals, the better-ranked chunk.
  candidates.sort((a, b) => b.coverage - a.coverage || a.hitRank - b.hitRank);
  const chosen = candidates.slice(0, maxPassages);
  // Relevant chunks with nothing left to quote (all of it struck through).
  if (chosen.length === 0) return nothingFound();

  const passages = chosen.map((candidate): Passage => {
    const { chunk, score } = candidate.hit;
    const raw = chunk.text.slice(candidate.sentence.start, candidate.sentence.end);
    const text = bestExcerpt(raw, terms).text;
    return { text, citation: sentenceCitation(candidate.hit, candidate.sentence, text, score) };
  });
  const answer = passages.map((passage, i) => `“${passage.text}” [${i + 1}]`).join('\n');
  const quoted = [...new Set(chosen.map((candidate) => candidate.hit))];
  return {
    answer,
    citations: passages.map((p) => p.citation),
    passages,
    found: true,
    confidence: best(quoted),
  };
}

const STRUCK = /~~(?=\S)[^]*?\S~~/g;

/**
 * Whether a sentence is struck through (`~~…~~`), bar notes in brackets and block ids: text its
 * author withdrew, such as a memory a newer fact replaced ("~~…~~ (replaced … by ^m-9q2x)
 * ^m-7k2p", docs/memory-digest-calendar.md) or a plan called off. It is not quoted as an answer.
 */
export function isWithdrawn(sentence: string): boolean {
  const rest = sentence.replace(STRUCK, ' ');
  if (rest === sentence) return false;
  const left = rest
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\^[A-Za-z0-9-]+/g, ' ')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?/, '');
  return !/[\p{L}\p{N}]/u.test(left);
}

/** The hit's citation narrowed to one sentence: its excerpt, its lines, the heading above it. */
function sentenceCitation(
  hit: RankedChunk,
  sentence: Sentence,
  text: string,
  score: number,
): Citation {
  const base = hit.citation;
  const clamped = Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
  if (base.type === 'pdf') return { ...base, excerpt: text, score: clamped };
  const chunk = hit.chunk;
  const startLine = chunk.startLine ?? 1;
  const before = chunk.text.slice(0, sentence.start);
  const first = startLine + countNewlines(before);
  const last = first + countNewlines(chunk.text.slice(sentence.start, sentence.end));
  const heading = headingAbove(before) ?? chunk.heading;
  const { heading: _drop, ...rest } = base;
  return {
    ...rest,
    ...(heading === undefined ? {} : { heading }),
    excerpt: text,
    lines: [first, Math.max(first, Math.min(last, chunk.endLine ?? last))],
    score: clamped,
  };
}

/**
 * Sentence ranges of a chunk's text: prose split after `.`, `!` or `?` followed by space, list
 * items and table rows one each, headings and code fences skipped (a heading is not a claim).
 */
export function sentencesOf(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  let offset = 0;
  let inFence = false;
  for (const line of text.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (
      inFence ||
      /^\s*#{1,6}\s/.test(line) ||
      line.trim() === '' ||
      /^\s*\|?[-:| ]+\|?\s*$/.test(line)
    ) {
      continue;
    }
    const splitter = /[.!?](?=\s+\S)/g;
    // An ordered-list marker (`1. `) is not a sentence end.
    splitter.lastIndex = /^\s*(?:[-*+]|\d+[.)])\s+/.exec(line)?.[0].length ?? 0;
    let from = 0;
    for (let match = splitter.exec(line); match !== null; match = splitter.exec(line)) {
      const end = match.index + 1;
      if (/\b(?:e\.g|i\.e|etc|vs|Mr|Dr|St)\.$/i.test(line.slice(0, end))) continue;
      pushTrimmed(sentences, line, lineStart, from, end);
      from = end;
    }
    pushTrimmed(sentences, line, lineStart, from, line.length);
  }
  return sentences;
}

function pushTrimmed(
  out: Sentence[],
  line: string,
  lineStart: number,
  from: number,
  to: number,
): void {
  let start = from;
  let end = to;
  while (start < end && /\s/.test(line.charAt(start))) start++;
  while (end > start && /\s/.test(line.charAt(end - 1))) end--;
  if (!/[\p{L}\p{N}]/u.test(line.slice(start, end))) return;
  out.push({ start: lineStart + start, end: lineStart + end });
}

function headingAbove(text: string): string | undefined {
  let heading: string | undefined;
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence) {
      const match = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (match) heading = match[1];
    }
  }
  return heading;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
