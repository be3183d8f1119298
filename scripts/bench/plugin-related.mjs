#!/usr/bin/env node
// Benchmark of the related-notes view's ranking (plugin/related/ over plugin/search/'s engine):
// the time from a file switch's deferred task starting to the ranking being ready, per note,
// at --notes generated notes (scripts/bench/generate-vault.ts), keyword only and with a
// synthetic 512-dim embedder (the same one as plugin-search.mjs; ranking never calls the
// model, it reads the stored vectors). Links: each note links to 3 others (so the graph pass,
// which walks every note's resolved links, does real work); tags from the front matter.
// Wall time and this process's CPU time per switch (the machine may be shared: CPU time is
// what the work costs, wall time adds waiting for a core). In Node; plugin-browser.mjs runs the
// same ranking in headless Chromium.
//
//   node scripts/bench/plugin-related.mjs [--notes 10000] [--samples 200]
import { bundleForNode } from '../bundle-for-node.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '200' },
  },
});
const noteCount = Number(args.notes);
const samples = Number(args.samples);

const { load } = await bundleForNode('cairn-bench-plugin-related', [
  'plugin/search/search-engine.ts',
  'plugin/search/note-input.ts',
  'plugin/related/related-notes.ts',
  'plugin/related/vault-graph.ts',
  'shared/search/chunk.ts',
  'shared/search/tokenize.ts',
  'scripts/bench/generate-vault.ts',
]);
const { createSearchEngine } = await load('search-engine');
const { noteInputFromMarkdown } = await load('note-input');
const { rankRelated } = await load('related-notes');
const { VaultGraph } = await load('vault-graph');
const { chunkNote } = await load('chunk');
const { tokenize } = await load('tokenize');
const { generateVault } = await load('generate-vault');

function synthetic(text) {
  const vector = new Float32Array(512);
  for (const token of tokenize(text)) {
    let hash = 2166136261;
    for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 16777619);
    vector[(hash >>> 0) % 512] += 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < 512; i++) vector[i] /= norm;
  return vector;
}
const embedder = {
  model: { id: 'synthetic-512', dims: 512 },
  embed: async (texts) => texts.map(synthetic),
};

const temp = mkdtempSync(join(tmpdir(), 'cairn-related-'));
try {
  const paths = generateVault(temp, noteCount).paths.sort();
  const tags = new Map();
  const notes = paths.map((path) => {
    const input = noteInputFromMarkdown(path, readFileSync(join(temp, path), 'utf8'));
    if (!input.ok) throw new Error(input.problem.message);
    tags.set(
      path,
      input.input.tags.map((tag) => tag.toLowerCase()),
    );
    return { path, chunks: chunkNote(input.input) };
  });
  // A deterministic link graph: note i links to i+1, i+7 and i+31.
  const resolvedLinks = {};
  paths.forEach((path, i) => {
    resolvedLinks[path] = Object.fromEntries(
      [1, 7, 31].map((step) => [paths[(i + step) % paths.length], 1]),
    );
  });
  const graphStart = performance.now();
  const graph = VaultGraph.build({ resolvedLinks, paths, tagsOf: (path) => tags.get(path) ?? [] });
  const graphMs = performance.now() - graphStart;

  const rows = [];
  for (const mode of ['keyword', 'hybrid']) {
    const engine = createSearchEngine({ embedder: mode === 'hybrid' ? embedder : null });
    for (const { path, chunks } of notes) {
      const vectors = new Map(chunks.map((c) => [c.textHash, synthetic(c.text)]));
      engine.upsertNote(path, chunks, mode === 'hybrid' ? (h) => vectors.get(h) : undefined);
    }
    const times = [];
    const chunkTimes = [];
    const cpuTimes = [];
    let shown = 0;
    for (let s = 0; s < samples; s++) {
      const path = paths[(s * 7919) % paths.length];
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      // What the adapter does per switch: links and tag candidates from the vault graph (built
      // once per metadata change, so not timed here), chunks, fusion.
      const links = graph.neighbourhood(path);
      const sharingTags = graph.notesSharingTags(path);
      const chunkStart = performance.now();
      const chunks = engine.relatedChunks(path, 60);
      chunkTimes.push(performance.now() - chunkStart);
      const result = rankRelated({
        path,
        chunks,
        links,
        tagsOf: (p) => graph.tagsOf(p),
        titleOf: (p) => p,
        sharingTags,
        limit: 20,
      });
      times.push(performance.now() - start);
      const cpu = process.cpuUsage(cpuStart);
      cpuTimes.push((cpu.user + cpu.system) / 1000);
      shown += result.notes.length;
    }
    times.sort((a, b) => a - b);
    chunkTimes.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    rows.push({
      mode,
      notes: paths.length,
      chunks: engine.size,
      'p50 ms': at(0.5).toFixed(1),
      'p95 ms': at(0.95).toFixed(1),
      'max ms': times[times.length - 1].toFixed(1),
      'CPU p50 ms': cpuTimes[Math.floor(cpuTimes.length / 2)].toFixed(1),
      'CPU p95 ms': cpuTimes[Math.floor(cpuTimes.length * 0.95)].toFixed(1),
      'index part p50 ms': chunkTimes[Math.floor(chunkTimes.length / 2)].toFixed(1),
      'shown avg': (shown / samples).toFixed(1),
    });
  }
  console.table(rows);
  console.log(
    `Vault graph (links both ways, tags): built in ${graphMs.toFixed(1)} ms, once per metadata-cache change.`,
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}
