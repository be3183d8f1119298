import type { NoteChunk } from '../../shared/search/chunk';
import type { VaultSearchOptions } from './vault-search';

/*
 * Path, folder, tag and type filters as exact matches on a chunk's folder chain, tag chain and type
 * (never tokenised text matches), checked per candidate on the keyword and the vector side.
 */

/** `A/B/note.md` → `['A', 'A/B']`: a folder filter matches everything below it. */
export function folderChain(path: string): string[] {
  const parts = path.split('/').slice(0, -1);
  const chain: string[] = [];
  for (let i = 0; i < parts.length; i++) chain.push(parts.slice(0, i + 1).join('/'));
  return chain;
}

/** `#Project/Alpha` → `project/alpha`: tags compare case-insensitively, without the `#`. */
export function normaliseTag(tag: string): string {
  return tag.trim().replace(/^#+/, '').toLowerCase();
}

/** Each tag and its parents (`project/alpha` → `project`, `project/alpha`): nested tags match their parent. */
export function tagChain(tags: readonly string[]): string[] {
  const chain = new Set<string>();
  for (const raw of tags) {
    const tag = normaliseTag(raw);
    if (!tag) continue;
    const parts = tag.split('/');
    for (let i = 0; i < parts.length; i++) chain.add(parts.slice(0, i + 1).join('/'));
  }
  return [...chain];
}

/** The search options' filters as one predicate over chunks, for either side's candidates. */
export function chunkFilter(options: VaultSearchOptions): (chunk: NoteChunk) => boolean {
  const { folder, tag, type, paths } = filterValues(options);
  return (chunk) =>
    (paths === undefined || paths.has(chunk.path)) &&
    (folder === '' || folderChain(chunk.path).includes(folder)) &&
    (tag === '' || tagChain(chunk.tags).includes(tag)) &&
    (type === undefined || docTypeOf(chunk) === type);
}

/** `reminder` from front matter, `pdf` by extension, otherwise `note`. */
export function docTypeOf(chunk: Pick<NoteChunk, 'type' | 'path'>): 'note' | 'reminder' | 'pdf' {
  if (chunk.type === 'reminder') return 'reminder';
  return chunk.path.toLowerCase().endsWith('.pdf') ? 'pdf' : 'note';
}

/** Whether `options` narrow the search at all (chunkFilter would refuse some chunk). */
export function hasFilter(options: VaultSearchOptions): boolean {
  const { folder, tag, type, paths } = filterValues(options);
  return folder !== '' || tag !== '' || type !== undefined || paths !== undefined;
}

function filterValues(options: VaultSearchOptions) {
  return {
    folder: options.folder?.trim().replace(/^\/+|\/+$/g, '') ?? '',
    tag: options.tag === undefined ? '' : normaliseTag(options.tag),
    type: options.type,
    paths: options.paths === undefined ? undefined : new Set(options.paths),
  };
}
