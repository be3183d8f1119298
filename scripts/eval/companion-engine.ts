import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Embedder } from '../../shared/ports';
import { openDatabase } from '../../companion/db/open';
import type { SqliteDatabase } from '../../companion/db/open';
import { VaultIndexer } from '../../companion/search';
import type { ColumnWeights } from '../../companion/search';
import { createLogger } from '../../companion/logging';
import { HybridSearch } from '../../companion/search/hybrid-search';
import type {
  FusionConfig,
  QueryCasing,
  SearchOutcome,
} from '../../companion/search/hybrid-search';
import type { EvalDocument, EvalEngine } from './engine';

export interface CompanionEngineOptions {
  name: string;
  /** Absent: keyword-only, as the companion runs with no embedding model. */
  embedder?: () => Promise<Embedder>;
  fusion?: Partial<FusionConfig>;
  weights?: Partial<ColumnWeights>;
  /** How the question is cased for the embedding model (HybridSearch's default if absent). */
  queryCasing?: QueryCasing;
}

/**
 * The companion's real pipeline: documents written as Markdown files into a temp vault, indexed
 * by the VaultIndexer into a temp SQLite database (FTS5 + sqlite-vec), searched by HybridSearch.
 * Results are chunks; a note's rank is that of its best chunk.
 */
export class CompanionEngine implements EvalEngine {
  readonly name: string;
  private dir: string | null = null;
  private db: SqliteDatabase | null = null;
  private indexer: VaultIndexer | null = null;
  private embedder: Embedder | undefined;
  private idByPath = new Map<string, string>();

  private fusion: Partial<FusionConfig> | undefined;

  constructor(private readonly options: CompanionEngineOptions) {
    this.name = options.name;
    this.fusion = options.fusion;
  }

  /** Changes the fusion of later searches (the index stays): for tuning on one index. */
  setFusion(fusion: Partial<FusionConfig>): void {
    this.fusion = fusion;
  }

  async index(documents: readonly EvalDocument[]): Promise<void> {
    await this.close();
    this.dir = mkdtempSync(join(tmpdir(), 'cairn-eval-'));
    const vault = join(this.dir, 'vault');
    this.idByPath = new Map();
    for (const doc of documents) {
      const file = join(vault, doc.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, doc.raw);
      this.idByPath.set(doc.path, doc.id);
    }
    this.embedder = this.options.embedder ? await this.options.embedder() : undefined;
    this.db = openDatabase(join(this.dir, 'index.db'));
    this.indexer = new VaultIndexer({
      vault,
      db: this.db,
      clock: { now: () => Date.now() },
      logger: createLogger('silent'),
      watch: false,
      ...(this.embedder ? { embedder: this.embedder } : {}),
      ...(this.options.weights ? { weights: this.options.weights } : {}),
    });
    await this.indexer.start();
    await this.indexer.whenEmbedded();
  }

  /** The companion's own search outcome (chunks, scores, mode), one chunk per note. */
  async searchOutcome(query: string, k: number): Promise<SearchOutcome> {
    if (this.indexer === null) throw new Error(`${this.name}: search before index`);
    const search = new HybridSearch({
      index: this.indexer.queries,
      ...(this.embedder ? { embedder: () => this.embedder } : {}),
      ...(this.fusion ? { fusion: this.fusion } : {}),
      ...(this.options.queryCasing ? { queryCasing: this.options.queryCasing } : {}),
      maxPerNote: 1,
    });
    return search.search({ query, limit: k });
  }

  async search(query: string, k: number): Promise<string[]> {
    const outcome = await this.searchOutcome(query, k);
    if (this.embedder && outcome.mode !== 'hybrid') {
      throw new Error(
        `${this.name}: expected hybrid search, ran ${outcome.mode} (${outcome.keywordOnlyReason})`,
      );
    }
    const ids: string[] = [];
    for (const hit of outcome.hits) {
      const id = this.idByPath.get(hit.chunk.path);
      if (id !== undefined && !ids.includes(id)) ids.push(id);
    }
    return ids.slice(0, k);
  }

  async close(): Promise<void> {
    await this.indexer?.close();
    this.db?.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.indexer = null;
    this.db = null;
    this.dir = null;
  }
}
