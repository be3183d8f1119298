import { describe, expect, it } from 'vitest';
import { VaultGraph } from '../../../plugin/related/vault-graph';

/** Every note's links and tags walked for one note: what the index must answer the same as. */
function walked(
  resolvedLinks: Record<string, Record<string, number>>,
  tags: Map<string, string[]>,
  path: string,
) {
  const outgoing = new Set(Object.keys(resolvedLinks[path] ?? {}));
  outgoing.delete(path);
  const incoming = new Set<string>();
  const sharedTargets = new Map<string, number>();
  for (const [source, targets] of Object.entries(resolvedLinks)) {
    if (source === path) continue;
    let shared = 0;
    for (const target of Object.keys(targets)) {
      // A note's link to itself is neither a link in nor a shared target.
      if (target === source) continue;
      if (target === path) incoming.add(source);
      else if (outgoing.has(target)) shared++;
    }
    if (shared > 0) sharedTargets.set(source, shared);
  }
  const own = new Set(tags.get(path) ?? []);
  const sharing = [...tags]
    .filter(([other, list]) => other !== path && list.some((tag) => own.has(tag)))
    .map(([other]) => other)
    .sort();
  return { outgoing, incoming, sharedTargets, sharing };
}

describe('VaultGraph', () => {
  it('answers every note as walking the whole vault does', () => {
    // A small deterministic graph with self links, hubs, notes without links or tags.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const paths = Array.from({ length: 60 }, (_, i) => `Folder ${i % 4}/note ${i}.md`);
    const resolvedLinks: Record<string, Record<string, number>> = {};
    const tags = new Map<string, string[]>();
    for (const [i, path] of paths.entries()) {
      if (i % 9 !== 0) {
        const targets: Record<string, number> = {};
        for (let k = 0; k < 1 + (i % 5); k++) targets[paths[Math.floor(random() * 60)]!] = 1;
        if (i % 7 === 0) targets[path] = 2;
        targets[paths[0]!] = 1;
        resolvedLinks[path] = targets;
      }
      if (i % 6 !== 0) tags.set(path, [`t${i % 5}`, ...(i % 4 === 0 ? ['shared'] : [])]);
    }
    const graph = VaultGraph.build({
      resolvedLinks,
      paths,
      tagsOf: (path) => tags.get(path) ?? [],
    });
    for (const path of paths) {
      const expected = walked(resolvedLinks, tags, path);
      const found = graph.neighbourhood(path);
      expect(found.outgoing, path).toEqual(expected.outgoing);
      expect(found.incoming, path).toEqual(expected.incoming);
      expect(found.sharedTargets, path).toEqual(expected.sharedTargets);
      expect(graph.notesSharingTags(path).sort(), path).toEqual(expected.sharing);
      expect(graph.tagsOf(path), path).toEqual(tags.get(path) ?? []);
    }
  });

  it('knows nothing of a note it was not given', () => {
    const graph = VaultGraph.build({ resolvedLinks: {}, paths: [], tagsOf: () => [] });
    expect(graph.neighbourhood('Missing.md')).toEqual({
      outgoing: new Set(),
      incoming: new Set(),
      sharedTargets: new Map(),
    });
    expect(graph.notesSharingTags('Missing.md')).toEqual([]);
  });
});
