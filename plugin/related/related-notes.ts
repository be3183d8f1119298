import { fuseScores } from '../../shared/search/fusion';
import type { Scored } from '../../shared/search/fusion';
import type { RelatedChunk, RelatedChunks } from '../search/search-engine';

/*
 * The related-notes ranking (Smart Connections' core view, done with what Cairn already
 * holds): the index's content similarity to the active note (its mean vector, and its most
 * frequent terms as a keyword query) fused with the link graph and shared tags. Pure: the
 * Obsidian adapter gathers links and tags from the metadata cache and hands them in.
 */

/** Why a note is in the list; the view shows these as small labels. */
export type RelatedReason = 'similar' | 'links-to' | 'linked-from' | 'shared-links' | 'shared-tags';

export interface RelatedNote {
  path: string;
  title: string;
  /** 0–1, best first. */
  score: number;
  reasons: RelatedReason[];
  sharedTags: string[];
  /** The other note's best-matching section, when its content matched. */
  section?: { heading?: string; line: number; excerpt: string };
}

export interface RelatedResult {
  /** `keyword` when no vectors took part (no provider, or the note has none yet). */
  mode: 'hybrid' | 'keyword';
  notes: RelatedNote[];
}

/** The active note's place in the link graph, from Obsidian's resolved links. */
export interface LinkNeighbourhood {
  /** Notes the active note links to. */
  outgoing: ReadonlySet<string>;
  /** Notes linking to the active note. */
  incoming: ReadonlySet<string>;
  /** Other notes by how many of the active note's link targets they link to as well. */
  sharedTargets: ReadonlyMap<string, number>;
}

export interface RelatedInputs {
  path: string;
  chunks: RelatedChunks;
  links: LinkNeighbourhood;
  /** Tags of a note (without `#`, lower case), from the metadata cache. */
  tagsOf: (path: string) => readonly string[];
  /** Notes carrying at least one of the active note's tags (candidates by tag alone). */
  sharingTags?: Iterable<string>;
  /** Display title of a note that only the link graph or tags found. */
  titleOf: (path: string) => string;
  limit?: number;
}

/*
 * Weights, chosen by judgement (no eval set of "related" judgements exists yet): content
 * similarity leads; a direct link is a strong signal the user made themselves; shared link
 * targets and shared tags nudge. In content, vectors outweigh the keyword query (which is a
 * bag of the note's frequent words) when both exist.
 */
const CONTENT_WEIGHTS = { vector: 1, keyword: 0.4 } as const;
const SIGNAL_WEIGHTS = { content: 1, link: 0.5, tags: 0.25 } as const;
/** Shared link targets count up to this many (then the link signal is as for a direct link × ½). */
const SHARED_TARGETS_FULL = 3;
const DEFAULT_LIMIT = 20;

export function rankRelated(inputs: RelatedInputs): RelatedResult {
  const { path, chunks, links, tagsOf, titleOf } = inputs;
  const limit = inputs.limit ?? DEFAULT_LIMIT;
  const hasVectors = chunks.vector.length > 0;
  const bestChunk = new Map<string, RelatedChunk>();
  const keywordByNote = perNote(chunks.keyword, bestChunk);
  const vectorByNote = perNote(chunks.vector, bestChunk);
  const content = new Map<string, number>();
  const fused = hasVectors
    ? fuseScores([vectorByNote, keywordByNote], {
        weights: [CONTENT_WEIGHTS.vector, CONTENT_WEIGHTS.keyword],
      })
    : keywordByNote;
  for (const item of fused) content.set(item.key, item.score);

  const candidates = new Set<string>([
    ...content.keys(),
    ...links.outgoing,
    ...links.incoming,
    ...links.sharedTargets.keys(),
    ...(inputs.sharingTags ?? []),
  ]);
  candidates.delete(path);
  const ownTags = new Set(tagsOf(path));
  const total = SIGNAL_WEIGHTS.content + SIGNAL_WEIGHTS.link + SIGNAL_WEIGHTS.tags;
  const ranked: Array<{
    candidate: string;
    score: number;
    reasons: RelatedReason[];
    sharedTags: string[];
    best: RelatedChunk | undefined;
  }> = [];
  for (const candidate of candidates) {
    const reasons: RelatedReason[] = [];
    const contentScore = content.get(candidate) ?? 0;
    if (contentScore > 0) reasons.push('similar');
    let link = 0;
    if (links.outgoing.has(candidate)) reasons.push('links-to');
    if (links.incoming.has(candidate)) reasons.push('linked-from');
    if (reasons.includes('links-to') || reasons.includes('linked-from')) link = 1;
    const shared = links.sharedTargets.get(candidate) ?? 0;
    if (shared > 0) {
      reasons.push('shared-links');
      link = Math.max(link, (0.5 * Math.min(shared, SHARED_TARGETS_FULL)) / SHARED_TARGETS_FULL);
    }
    const theirTags = tagsOf(candidate);
    const sharedTags = ownTags.size === 0 ? [] : theirTags.filter((tag) => ownTags.has(tag));
    const union = new Set([...ownTags, ...theirTags]).size;
    const tagScore = union === 0 ? 0 : sharedTags.length / union;
    if (sharedTags.length > 0) reasons.push('shared-tags');
    const score =
      (SIGNAL_WEIGHTS.content * contentScore +
        SIGNAL_WEIGHTS.link * link +
        SIGNAL_WEIGHTS.tags * tagScore) /
      total;
    if (score <= 0) continue;
    const best = bestChunk.get(candidate);
    ranked.push({ candidate, score, reasons, sharedTags, best });
  }
  ranked.sort(
    (a, b) =>
      b.score - a.score || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0),
  );
  // Excerpts are cut only for the notes shown.
  const notes = ranked.slice(0, limit).map(({ candidate, score, reasons, sharedTags, best }) => {
    const citation = best && chunks.cite(best.chunkId);
    const note: RelatedNote = {
      path: candidate,
      title: citation?.title ?? titleOf(candidate),
      score,
      reasons,
      sharedTags,
      ...(citation && citation.type === 'note'
        ? {
            section: {
              ...(citation.heading ? { heading: citation.heading } : {}),
              line: citation.lines[0],
              excerpt: citation.excerpt,
            },
          }
        : {}),
    };
    return note;
  });
  return { mode: hasVectors ? 'hybrid' : 'keyword', notes };
}

/**
 * Each note's best chunk score from one ranking (keyed by path), remembering the best chunk
 * seen for the note across rankings for the section line (vector matches win: they come last
 * and are the better section guess when both exist).
 */
function perNote(ranking: readonly RelatedChunk[], bestChunk: Map<string, RelatedChunk>): Scored[] {
  const byNote = new Map<string, number>();
  for (const chunk of ranking) {
    const path = chunk.path;
    const previous = byNote.get(path);
    if (previous === undefined || chunk.score > previous) {
      byNote.set(path, chunk.score);
      bestChunk.set(path, chunk);
    }
  }
  return [...byNote].map(([key, score]) => ({ key, score }));
}
