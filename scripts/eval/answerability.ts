import { termCoverage } from '../../companion/search/relevance';
import type { CompanionEngine } from './companion-engine';
import type { Dataset } from './datasets';

/*
 * Measures the answer relevance gate (companion/search/relevance.ts): for answerable questions
 * (judged ones) and questions the vault does not cover, the strongest evidence among the top
 * hits: best term coverage and best cosine. A gate (coverage ≥ c OR cosine ≥ s) should accept
 * the first and refuse the second; the table shows both rates for a grid of thresholds.
 */

interface Evidence {
  coverage: number;
  cosine: number;
  /** The top hit is a judged-relevant note (answerable questions only). */
  topRelevant: boolean;
}

export async function answerability(
  dataset: Dataset,
  engine: CompanionEngine,
  hits = 5,
): Promise<string> {
  await engine.index(dataset.documents);
  const evidence = async (question: string, judged?: ReadonlyMap<string, number>) => {
    const outcome = await engine.searchOutcome(question, hits);
    let coverage = 0;
    let cosine = 0;
    for (const hit of outcome.hits) {
      const chunk = hit.chunk;
      const text = [chunk.title, ...chunk.aliases, ...chunk.headingPath, chunk.text].join('\n');
      coverage = Math.max(coverage, termCoverage(outcome.terms, text));
      cosine = Math.max(cosine, hit.vectorScore ?? 0);
    }
    const top = outcome.hits[0]?.chunk.path;
    return { coverage, cosine, topRelevant: top !== undefined && (judged?.get(top) ?? 0) > 0 };
  };
  const answerable: Evidence[] = [];
  for (const query of dataset.queries) answerable.push(await evidence(query.text, query.judgments));
  const unanswerable: Evidence[] = [];
  for (const question of dataset.unanswerable ?? []) unanswerable.push(await evidence(question));

  const rows = [
    ['coverage ≥', 'cosine ≥', 'answered (of answerable)', 'declined (of unanswerable)'],
  ];
  for (const minCoverage of [0.34, 0.5, 0.67, 1]) {
    for (const minCosine of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, Infinity]) {
      const pass = (e: Evidence) => e.coverage >= minCoverage || e.cosine >= minCosine;
      rows.push([
        minCoverage.toFixed(2),
        Number.isFinite(minCosine) ? minCosine.toFixed(2) : 'off',
        `${answerable.filter(pass).length}/${answerable.length}`,
        `${unanswerable.filter((e) => !pass(e)).length}/${unanswerable.length}`,
      ]);
    }
  }
  const cosines = (list: Evidence[]) =>
    list
      .map((e) => e.cosine)
      .sort((a, b) => a - b)
      .map((c) => c.toFixed(2))
      .join(' ');
  return [
    `${engine.name}, top ${hits} hits; top hit judged relevant for ${answerable.filter((e) => e.topRelevant).length}/${answerable.length} answerable questions`,
    ...rows.map((row) =>
      row.map((cell, i) => (i < 2 ? cell.padEnd(11) : cell.padEnd(28))).join(' '),
    ),
    `best cosine, answerable:   ${cosines(answerable)}`,
    `best cosine, unanswerable: ${cosines(unanswerable)}`,
  ].join('\n');
}
