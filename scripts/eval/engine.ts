/*
 * What the eval compares: anything that can index a set of documents and rank them for a query.
 * Engines are adapters around the real code (the companion's index, MiniSearch, the plugin's
 * Orama engine once it exists); the harness only sees ranked document ids.
 */

/** One document of a dataset: a Cranfield abstract or one note of a vault. */
export interface EvalDocument {
  /** Stable id the judgments use (Cranfield's number, a note's vault path). */
  id: string;
  title: string;
  /** Body text (Markdown for notes, without front matter). */
  text: string;
  /** Vault-relative path with `.md`; engines that index files write the document there. */
  path: string;
  aliases: readonly string[];
  /** Headings of the body, outermost first, in order. */
  headings: readonly string[];
  /** The file as it is on disk (front matter included), for engines that index files. */
  raw: string;
}

export interface EvalEngine {
  readonly name: string;
  index(documents: readonly EvalDocument[]): Promise<void>;
  /** Document ids, best first, at most `k`, each at most once. */
  search(query: string, k: number): Promise<string[]>;
  /** Releases temp folders, workers, databases. */
  close?(): Promise<void>;
}
