import type { LinkNeighbourhood } from './related-notes';

/*
 * The link graph and tags of the whole vault, indexed both ways once, so a related-notes
 * switch looks up its note's neighbours instead of walking every note's links and tags (two
 * passes over 10k notes per switch were most of its time on a phone). The adapter builds it
 * from the metadata cache and drops it when the cache changes; the next switch builds it again.
 */

export interface VaultGraphInput {
  /** Obsidian's `metadataCache.resolvedLinks`: source path → target path → count. */
  resolvedLinks: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Every Markdown note. */
  paths: Iterable<string>;
  /** A note's tags, lower case without `#`. */
  tagsOf: (path: string) => readonly string[];
  /** Notes left out of the graph both ways (saved chats, Obsidian's Excluded files). */
  excluded?: (path: string) => boolean;
}

const NO_TAGS: readonly string[] = [];

export class VaultGraph {
  private constructor(
    private readonly outgoing: ReadonlyMap<string, readonly string[]>,
    private readonly incoming: ReadonlyMap<string, readonly string[]>,
    private readonly tags: ReadonlyMap<string, readonly string[]>,
    private readonly notesByTag: ReadonlyMap<string, readonly string[]>,
  ) {}

  static build(input: VaultGraphInput): VaultGraph {
    const excluded = input.excluded ?? (() => false);
    const outgoing = new Map<string, string[]>();
    const incoming = new Map<string, string[]>();
    for (const [source, targets] of Object.entries(input.resolvedLinks)) {
      // A saved chat's "Sources:" links say nothing about how its notes relate.
      if (excluded(source)) continue;
      const out: string[] = [];
      for (const target of Object.keys(targets)) {
        if (target === source || excluded(target)) continue;
        out.push(target);
        let sources = incoming.get(target);
        if (!sources) incoming.set(target, (sources = []));
        sources.push(source);
      }
      outgoing.set(source, out);
    }
    const tags = new Map<string, readonly string[]>();
    const notesByTag = new Map<string, string[]>();
    for (const path of input.paths) {
      if (excluded(path)) continue;
      const own = input.tagsOf(path);
      if (own.length === 0) continue;
      tags.set(path, own);
      for (const tag of own) {
        let notes = notesByTag.get(tag);
        if (!notes) notesByTag.set(tag, (notes = []));
        notes.push(path);
      }
    }
    return new VaultGraph(outgoing, incoming, tags, notesByTag);
  }

  /** Links out of `path`, links into it, and notes linking to the same targets. */
  neighbourhood(path: string): LinkNeighbourhood {
    const outgoing = new Set(this.outgoing.get(path) ?? []);
    const incoming = new Set(this.incoming.get(path) ?? []);
    const sharedTargets = new Map<string, number>();
    for (const target of outgoing) {
      for (const source of this.incoming.get(target) ?? []) {
        if (source !== path) sharedTargets.set(source, (sharedTargets.get(source) ?? 0) + 1);
      }
    }
    return { outgoing, incoming, sharedTargets };
  }

  tagsOf(path: string): readonly string[] {
    return this.tags.get(path) ?? NO_TAGS;
  }

  /** Other notes with at least one of `path`'s tags. */
  notesSharingTags(path: string): string[] {
    const found = new Set<string>();
    for (const tag of this.tagsOf(path)) {
      for (const other of this.notesByTag.get(tag) ?? []) if (other !== path) found.add(other);
    }
    return [...found];
  }
}
