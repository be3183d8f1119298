import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../../shared/ports';
import { normaliseQuery } from '../../shared/search';
import { vectorTable } from '../../companion/search/index-store';
import { HybridSearch } from '../../companion/search/hybrid-search';
import { copyVault, generatedVault, openIndex, scratch } from './fixtures';
import { buildQueries } from './generate-vault';
import { HashEmbedder, hashVector } from './hash-embedder';
import { percentile, rssMb, table } from './stats';

export interface BenchContext {
  corpora: string;
  /** Notes in the generated vault (default 10,000). */
  notes: number;
  /** Queries per row of the search part (default 200). */
  queries: number;
  /** Starts the real USE-lite worker embedder. */
  useLite: () => Promise<Embedder & { close(): Promise<void> }>;
}

const ms = (value: number) => value.toFixed(1);

/** Full index time and chunks/s: obsidian-help-en (keyword, then with USE-lite) and a generated vault. */
export async function indexPart(context: BenchContext): Promise<string> {
  const rows: string[][] = [];
  const run = async (label: string, vault: string, embedder?: Embedder) => {
    const dir = scratch('index');
    try {
      const start = performance.now();
      const index = await openIndex(
        vault,
        join(dir.path, 'index.db'),
        embedder ? { embedder } : {},
      );
      await index.indexer.whenIdle();
      const filesSeconds = (performance.now() - start) / 1000;
      await index.indexer.whenEmbedded();
      const seconds = (performance.now() - start) / 1000;
      const chunks = index.indexer.store.chunkCount();
      rows.push([
        label,
        String(index.indexer.store.fileCount()),
        String(chunks),
        filesSeconds.toFixed(1),
        seconds.toFixed(1),
        (chunks / seconds).toFixed(0),
        rssMb().toFixed(0),
      ]);
      await index.close();
    } finally {
      dir.remove();
    }
  };
  const help = join(context.corpora, 'obsidian-help-en');
  await run('obsidian-help-en, keyword only', help);
  const useLite = await context.useLite();
  try {
    await run('obsidian-help-en, + USE-lite vectors', help, useLite);
  } finally {
    await useLite.close();
  }
  const generated = scratch('gen');
  try {
    const { vault, info } = generatedVault(generated.path, context.notes);
    const mb = (info.bytes / 1e6).toFixed(1);
    await run(`generated ${context.notes} notes (${mb} MB), keyword only`, vault);
    await run(
      `generated ${context.notes} notes, + hash vectors (512 d)`,
      vault,
      new HashEmbedder(),
    );
  } finally {
    generated.remove();
  }
  return table(['vault', 'files', 'chunks', 'files s', 'total s', 'chunks/s', 'RSS MB'], rows);
}

/**
 * Restart of an indexed vault: files re-indexed and texts re-embedded (must be 0), time until
 * the scan is through (`whenIdle`: what status reports as pending 0) and until embeddings are
 * confirmed too. Each vault is restarted without, then with the watcher (as the server runs).
 */
export async function restartPart(context: BenchContext): Promise<string> {
  const rows: string[][] = [];
  const run = async (label: string, vault: string, dbFile: string) => {
    const first = await openIndex(vault, dbFile, { embedder: new HashEmbedder() });
    await first.indexer.whenEmbedded();
    await first.close();
    for (const watch of [false, true]) {
      const embedder = new HashEmbedder();
      const start = performance.now();
      const again = await openIndex(vault, dbFile, { embedder, watch });
      await again.indexer.whenIdle();
      const idleSeconds = (performance.now() - start) / 1000;
      await again.indexer.whenEmbedded();
      const seconds = (performance.now() - start) / 1000;
      rows.push([
        `${label}${watch ? ', watcher on' : ''}`,
        String(again.indexer.store.chunkCount()),
        String(again.indexer.indexedCount),
        String(embedder.texts),
        idleSeconds.toFixed(2),
        seconds.toFixed(2),
        rssMb().toFixed(0),
      ]);
      await again.close();
    }
  };
  const help = scratch('restart-help');
  const generated = scratch('restart-gen');
  try {
    await run(
      'obsidian-help-en',
      copyVault(join(context.corpora, 'obsidian-help-en'), help.path),
      join(help.path, 'index.db'),
    );
    const { vault } = generatedVault(generated.path, context.notes);
    await run(`generated ${context.notes} notes`, vault, join(generated.path, 'index.db'));
  } finally {
    help.remove();
    generated.remove();
  }
  return table(
    [
      'vault (restart)',
      'chunks',
      'files re-indexed',
      'texts re-embedded',
      'scan done s',
      'ready s',
      'RSS MB',
    ],
    rows,
  );
}

/** Edit → searchable: a file written while the watcher runs, until keyword search finds it. */
export async function editPart(context: BenchContext, trials = 15): Promise<string> {
  const dir = scratch('edit');
  try {
    const vault = copyVault(join(context.corpora, 'obsidian-help-en'), dir.path);
    const index = await openIndex(vault, join(dir.path, 'index.db'), { watch: true });
    await index.indexer.whenIdle();
    const latencies: { created: number[]; edited: number[] } = { created: [], edited: [] };
    for (let i = 0; i < trials; i++) {
      for (const kind of ['created', 'edited'] as const) {
        const token = `zqx${kind}${i}token`;
        const file = join(vault, kind === 'created' ? `Bench note ${i}.md` : 'Home.md');
        const start = performance.now();
        writeFileSync(file, `# Bench ${i}\n\nThe word ${token} is new here.\n`);
        for (;;) {
          if (index.indexer.queries.keyword(token, {}, 1).length > 0) break;
          if (performance.now() - start > 10_000)
            throw new Error(`edit bench: ${token} not found in 10 s`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        latencies[kind].push(performance.now() - start);
      }
    }
    await index.close();
    return table(
      ['edit → searchable (debounce 300 ms included)', 'trials', 'p50 ms', 'p95 ms', 'max ms'],
      (['created', 'edited'] as const).map((kind) => [
        `${kind} note`,
        String(latencies[kind].length),
        ms(percentile(latencies[kind], 0.5)),
        ms(percentile(latencies[kind], 0.95)),
        ms(Math.max(...latencies[kind])),
      ]),
    );
  } finally {
    dir.remove();
  }
}

/**
 * Search latency at scale, query embedding excluded (vectors precomputed). The vector rows
 * carry recall@10 and @50 of `vector()` (in-memory codes, then exact re-rank) against
 * sqlite-vec's exact KNN over the same stored vectors, whose own latency is a row too.
 */
export async function searchPart(context: BenchContext): Promise<string> {
  const queries = context.queries;
  const dir = scratch('search');
  try {
    const { vault, info } = generatedVault(dir.path, context.notes);
    const embedder = new HashEmbedder();
    const index = await openIndex(vault, join(dir.path, 'index.db'), { embedder });
    await index.indexer.whenEmbedded();
    const queries_ = buildQueries(info.vocabulary, queries);
    const vectors = new Map(queries_.map((q) => [q, hashVector(q, 512)]));
    const precomputed: Embedder = {
      model: embedder.model,
      embed: async (texts) => texts.map((text) => vectors.get(text) ?? hashVector(text, 512)),
    };
    const queriesApi = index.indexer.queries;
    const hybrid = new HybridSearch({ index: queriesApi, embedder: () => precomputed });
    const keywordOnly = new HybridSearch({ index: queriesApi });
    const time = async (run: (query: string) => unknown): Promise<number[]> => {
      for (const query of queries_.slice(0, 10)) await run(query); // warm-up
      const out: number[] = [];
      for (const query of queries_) {
        const start = performance.now();
        await run(query);
        out.push(performance.now() - start);
      }
      return out;
    };
    const model = index.indexer.store.models().at(-1)!;
    const exactKnn = index.db.prepare<[Buffer, number, number], { id: number }>(
      `SELECT c.id AS id FROM (SELECT rowid, distance FROM ${vectorTable(model.id)}
         WHERE embedding MATCH ? AND k = ?) n
       JOIN index_vectors v ON v.id = n.rowid JOIN index_chunks c ON c.text_hash = v.text_hash
       ORDER BY n.distance, c.id LIMIT ?`,
    );
    const exact = (query: string) => {
      const vector = vectors.get(query)!;
      return exactKnn
        .all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), 50, 50)
        .map((row) => row.id);
    };
    const firstStart = performance.now();
    queriesApi.vector(vectors.get(queries_[0]!)!, {}, 50); // loads the vectors into memory
    const firstMs = performance.now() - firstStart;
    const recall = (at: number) => {
      let sum = 0;
      for (const query of queries_) {
        const want = new Set(exact(query).slice(0, at));
        const got = queriesApi.vector(vectors.get(query)!, {}, 50).slice(0, at);
        sum += got.filter((hit) => want.has(hit.chunkId)).length / Math.max(1, want.size);
      }
      return (sum / queries_.length).toFixed(3);
    };
    const rows: Array<[string, number[], string?, string?]> = [
      [
        'FTS5 keyword() top 50',
        await time((q) => queriesApi.keyword(normaliseQuery(q).text, {}, 50)),
      ],
      [
        'vector() top 50 (in memory: codes, exact re-rank)',
        await time((q) => queriesApi.vector(vectors.get(q)!, {}, 50)),
        recall(10),
        recall(50),
      ],
      ['sqlite-vec exact KNN top 50 (reference)', await time((q) => exact(q))],
      [
        'vector() top 50, folder filter (narrow)',
        await time((q) => queriesApi.vector(vectors.get(q)!, { folder: 'Area 07' }, 50)),
      ],
      [
        'vector() top 50, type filter (broad)',
        await time((q) => queriesApi.vector(vectors.get(q)!, { type: 'note' }, 50)),
      ],
      [
        'HybridSearch keyword mode, 10 results',
        await time((q) => keywordOnly.search({ query: q, limit: 10 })),
      ],
      [
        'HybridSearch hybrid (default fusion), 10 results',
        await time((q) => hybrid.search({ query: q, limit: 10 })),
      ],
    ];
    const chunks = index.indexer.store.chunkCount();
    await index.close();
    return table(
      [
        `search at ${context.notes} notes / ${chunks} chunks`,
        'queries',
        'p50 ms',
        'p95 ms',
        'recall@10',
        'recall@50',
        'RSS MB',
      ],
      [
        ['first vector() after start (loads the vectors)', '1', ms(firstMs), '', '', '', ''],
        ...rows.map(([name, values, at10, at50]) => [
          name,
          String(values.length),
          ms(percentile(values, 0.5)),
          ms(percentile(values, 0.95)),
          at10 ?? '',
          at50 ?? '',
          rssMb().toFixed(0),
        ]),
      ],
    );
  } finally {
    dir.remove();
  }
}
