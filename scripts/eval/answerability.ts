import { writeFileSync } from 'node:fs';
import { hitCoverage } from '../../shared/search/answer-gate';
import { extractiveAnswer } from '../../companion/search/extractive-answer';
import type { CompanionEngine } from './companion-engine';
import type { Dataset } from './datasets';

/*
 * Measures the answer gate (shared/search/answer-gate.ts): for answerable questions (judged
 * ones), off-topic questions and near misses (sharing words with the vault, not answered by
 * it), the strongest evidence among the top hits: best key-term coverage (IDF-weighted), best
 * plain coverage and best cosine. The first table is the gate as shipped; the grid shows
 * the alternatives measured side by side.
 */

interface Evidence {
  /** Plain (unweighted) coverage, best over the hits: the gate before key terms. */
  plain: number;
  /** IDF-weighted coverage, best over the hits. */
  key: number;
  /** Best cosine. */
  cosine: number;
  /** Best key coverage among the hits whose cosine passes a threshold, per threshold. */
  keyWithCosine: (minCosine: number) => number;
  /** The shipped gate answered. */
  answered: boolean;
  /** It answered, and its first quote comes from a judged-relevant note (answerable only). */
  answeredFromJudged: boolean;
  /** The top hit is a judged-relevant note (answerable questions only). */
  topRelevant: boolean;
  question: string;
}

export async function answerability(
  dataset: Dataset,
  engine: CompanionEngine,
  hits = 5,
  /** A JSON file for every question's retrieved hits and signals (`--dump-gate`). */
  dumpFile?: string,
): Promise<string> {
  await engine.index(dataset.documents);
  const dump: unknown[] = [];
  const evidence = async (
    question: string,
    judged?: ReadonlyMap<string, number>,
    kind: 'answerable' | 'off-topic' | 'near miss' = 'answerable',
  ) => {
    const outcome = await engine.searchOutcome(question, hits);
    dump.push({
      question,
      kind,
      answerable: judged !== undefined,
      terms: outcome.terms,
      weights: outcome.termWeights,
      model: outcome.vectorModel,
      hits: outcome.hits.map((hit) => ({
        path: hit.chunk.path,
        judged: judged?.get(hit.chunk.path) ?? 0,
        title: hit.chunk.title,
        aliases: hit.chunk.aliases,
        headingPath: hit.chunk.headingPath,
        text: hit.chunk.text,
        score: hit.score,
        keywordScore: hit.keywordScore,
        vectorScore: hit.vectorScore,
      })),
    });
    const query = {
      terms: outcome.terms,
      ...(outcome.termWeights ? { weights: outcome.termWeights } : {}),
      ...(outcome.vectorModel ? { model: outcome.vectorModel } : {}),
    };
    const scored = outcome.hits.map((hit) => ({
      key: hitCoverage(hit, query),
      cosine: hit.vectorScore ?? 0,
    }));
    const answer = extractiveAnswer(question, outcome.hits, outcome.terms, {
      ...(outcome.vectorModel ? { model: outcome.vectorModel } : {}),
      ...(outcome.termWeights ? { weights: outcome.termWeights } : {}),
    });
    const top = outcome.hits[0]?.chunk.path;
    const plain = outcome.hits.map((hit) => hitCoverage(hit, { terms: outcome.terms }));
    return {
      plain: Math.max(0, ...plain),
      key: Math.max(0, ...scored.map((s) => s.key)),
      cosine: Math.max(0, ...scored.map((s) => s.cosine)),
      keyWithCosine: (minCosine: number) =>
        Math.max(-1, ...scored.filter((s) => s.cosine >= minCosine).map((s) => s.key)),
      answered: answer.found,
      answeredFromJudged: answer.found && (judged?.get(answer.citations[0]?.path ?? '') ?? 0) > 0,
      topRelevant: top !== undefined && (judged?.get(top) ?? 0) > 0,
      question,
    } satisfies Evidence;
  };
  const answerable: Evidence[] = [];
  for (const query of dataset.queries) answerable.push(await evidence(query.text, query.judgments));
  const offTopic: Evidence[] = [];
  for (const question of dataset.unanswerable ?? [])
    offTopic.push(await evidence(question, undefined, 'off-topic'));
  const nearMiss: Evidence[] = [];
  for (const question of dataset.nearMiss ?? [])
    nearMiss.push(await evidence(question, undefined, 'near miss'));

  const rate = (list: Evidence[], pass: (e: Evidence) => boolean, want: boolean) =>
    `${list.filter((e) => pass(e) === want).length}/${list.length}`;
  const header = [
    'gate',
    'answered (answerable)',
    'answered correctly',
    'declined (off-topic)',
    'declined (near miss)',
  ];
  // Answered correctly: the first quote comes from a note judged relevant. Only the shipped
  // gate quotes; the alternatives below are measured on the gate's signals alone.
  const row = (name: string, pass: (e: Evidence) => boolean, correct = '–') => [
    name,
    rate(answerable, pass, true),
    correct,
    rate(offTopic, pass, false),
    rate(nearMiss, pass, false),
  ];
  const rows = [
    header,
    row(
      'shipped gate (answer-gate.ts)',
      (e) => e.answered,
      rate(answerable, (e) => e.answeredFromJudged, true),
    ),
    row('before: plain coverage ≥ 0.67 or cos ≥ 0.45', (e) => e.plain >= 0.67 || e.cosine >= 0.45),
  ];
  for (const minKey of [0.5, 0.6, 0.67, 0.75]) {
    for (const minCosine of [0.4, 0.45, 0.5, Infinity]) {
      for (const minKeyWithCosine of Number.isFinite(minCosine) ? [0, 0.34, 0.5] : [0]) {
        const name = Number.isFinite(minCosine)
          ? `key ≥ ${minKey} or (cos ≥ ${minCosine} and key ≥ ${minKeyWithCosine})`
          : `key ≥ ${minKey} alone (keyword-only)`;
        rows.push(
          row(name, (e) => e.key >= minKey || e.keyWithCosine(minCosine) >= minKeyWithCosine),
        );
      }
    }
  }
  if (dumpFile !== undefined) writeFileSync(dumpFile, JSON.stringify(dump, null, 1));
  const failures = (label: string, list: Evidence[], want: boolean) => {
    const failed = list.filter((e) => e.answered !== want).map((e) => `    ${e.question}`);
    return failed.length === 0 ? [] : [`  ${label}:`, ...failed];
  };
  return [
    `${engine.name}, top ${hits} hits; top hit judged relevant for ${answerable.filter((e) => e.topRelevant).length}/${answerable.length} answerable questions`,
    ...rows.map((cells) => cells.map((cell, i) => cell.padEnd(i === 0 ? 44 : 24)).join(' ')),
    'Where the shipped gate fails:',
    ...failures('answerable, declined', answerable, true),
    ...(() => {
      const wrong = answerable.filter((e) => e.answered && !e.answeredFromJudged);
      return wrong.length === 0
        ? []
        : [
            '  answerable, first quote from a note not judged relevant:',
            ...wrong.map((e) => `    ${e.question}`),
          ];
    })(),
    ...failures('off-topic, answered', offTopic, false),
    ...failures('near miss, answered', nearMiss, false),
  ].join('\n');
}
