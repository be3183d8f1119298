import type { Decision } from '../../shared/protocol/decisions';
import type { UnsupportedClaimPolicy } from '../../shared/protocol/answer-audit';
import type { AnswerResponse } from '../../shared/protocol/search';
import { answerAudit, checkAnswer, extractiveAudit } from '../../shared/search/claim-check';
import { sourceDateNotes } from '../../shared/search/source-dates';
import type { ClaimSimilarity } from '../../shared/search/claim-check';
import { extractiveAnswer } from './extractive-answer';
import type { HybridSearch } from './hybrid-search';
import { SummaryError } from './ollama-summarizer';
import type { Summarizer } from './ollama-summarizer';
import type { IndexFilters } from './search-index';

export interface AnswerRequestOptions {
  question: string;
  limit: number;
  summarize: boolean;
  filters?: IndexFilters;
  /** Overrides the summarizer's own policy for unsupported claims. */
  unsupported?: UnsupportedClaimPolicy;
  /** Embedding similarity for the claim check, when a model is loaded. */
  similarity?: ClaimSimilarity;
  /** Now, for the sources' age (source-dates.ts); without it no date notes. */
  now?: number;
  /** The index's decisions (migration 012): "what did we decide about X?" is answered from them. */
  decisions?: (query: string, limit: number) => Decision[];
}

/** "What did we decide about …", "which decisions on …", "what was agreed for …". */
const DECISION_QUESTION =
  /\b(?:decide|decided|decision|decisions|agree|agreed|chose|choose|settled|rejected)\b/i;
/** The question's scaffolding, left out of the decision lookup. */
const DECISION_WORDS =
  /\b(?:what|which|did|do|does|have|has|we|i|they|the|team|decide|decided|decision|decisions|agree|agreed|chose|choose|settled|rejected|was|were|about|on|for|regarding|made|make)\b/gi;

/**
 * The answer from recorded decisions, when the question asks for one and some match: each
 * decision quoted with what it rejected and its date, cited where it is written.
 */
function decisionAnswer(request: AnswerRequestOptions): AnswerOutcome | undefined {
  if (request.decisions === undefined || !DECISION_QUESTION.test(request.question)) {
    return undefined;
  }
  const topic = request.question.replace(DECISION_WORDS, ' ').replace(/[?!.]/g, ' ').trim();
  if (topic === '') return undefined;
  const found = request.decisions(topic, Math.min(request.limit, 10));
  if (found.length === 0) return undefined;
  const lines = found.map((decision, index) => {
    const rejected =
      decision.rejected.length === 0 ? '' : ` (rejected: ${decision.rejected.join('; ')})`;
    const when = decision.date === null ? '' : `, ${decision.date}`;
    const status = decision.status === undefined ? '' : `, ${decision.status}`;
    return `- “${decision.text}”${rejected} (${decision.citation.title}${when}${status}) [${index + 1}]`;
  });
  const answer = `Decisions in your notes:\n${lines.join('\n')}`;
  const citations = found.map((decision) => decision.citation);
  return {
    answer,
    citations,
    confidence: Math.max(0.5, ...citations.map((c) => c.score)),
    summarized: false,
    audit: extractiveAudit({ answer, citations }),
    ...(request.now === undefined ? {} : { notes: sourceDateNotes(citations, request.now) }),
  };
}

export interface AnswerOutcome extends AnswerResponse {
  /** Set when a summary was asked for and could not be given; `answer` then says why, too. */
  summaryError?: string;
}

/**
 * Retrieves, quotes (extractive answer), and, when asked and configured, lets the LLM phrase a
 * summary of the same passages. Any summary failure falls back to the quotes with a note.
 */
export async function answerQuestion(
  search: HybridSearch,
  summarizer: Summarizer | undefined,
  request: AnswerRequestOptions,
): Promise<AnswerOutcome> {
  const outcome = await answerUncounted(search, summarizer, request);
  try {
    // Every answer served passes here (the route, chat, MCP `ask`, /v1/chat/completions, tasks).
    search.recordCitations(outcome.citations.map((citation) => citation.path));
  } catch {
    // A count that cannot be kept (a full disk) must not cost the user the answer.
  }
  return outcome;
}

async function answerUncounted(
  search: HybridSearch,
  summarizer: Summarizer | undefined,
  request: AnswerRequestOptions,
): Promise<AnswerOutcome> {
  const decided = decisionAnswer(request);
  if (decided !== undefined) return decided;
  const outcome = await search.search({
    query: request.question,
    limit: request.limit,
    ...(request.filters ? { filters: request.filters } : {}),
  });
  const extractive = extractiveAnswer(request.question, outcome.hits, outcome.terms, {
    ...(outcome.vectorModel === undefined ? {} : { model: outcome.vectorModel }),
    ...(outcome.termWeights === undefined ? {} : { weights: outcome.termWeights }),
  });
  const plain: AnswerOutcome = {
    answer: extractive.answer,
    citations: extractive.citations,
    confidence: extractive.confidence,
    summarized: false,
    audit: extractiveAudit(extractive),
    ...(request.now === undefined
      ? {}
      : { notes: sourceDateNotes(extractive.citations, request.now) }),
  };
  if (!request.summarize || !extractive.found) return plain;
  if (summarizer === undefined) {
    return withNote(plain, 'no language model is configured (set CAIRN_OLLAMA_CHAT_MODEL)');
  }
  try {
    const summary = await summarizer.summarize(request.question, extractive.passages);
    // Every claim of the summary is checked against the passages it cites (claim-check.ts).
    const checked = await checkAnswer(
      summary,
      extractive.passages.map((passage) => ({
        text: passage.text,
        title: passage.citation.title,
      })),
      request.unsupported ?? summarizer.unsupportedClaims ?? 'mark',
      {
        question: request.question,
        ...(request.similarity ? { similarity: request.similarity } : {}),
      },
    );
    return {
      answer: checked.text,
      citations: extractive.citations,
      confidence: extractive.confidence,
      summarized: true,
      audit: answerAudit(extractive.citations, checked.claims),
      ...(plain.notes === undefined ? {} : { notes: plain.notes }),
    };
  } catch (error) {
    if (!(error instanceof SummaryError)) throw error;
    return withNote(plain, error.message);
  }
}

function withNote(plain: AnswerOutcome, reason: string): AnswerOutcome {
  return {
    ...plain,
    answer: `(No summary: ${reason}. The quoted passages follow.)\n${plain.answer}`,
    summaryError: reason,
  };
}
