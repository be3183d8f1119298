import type { VaultFileKind } from './vault-change';
/** Which files the index reads, by extension. */
export function indexableKind(relative: string): 'markdown' | 'text' | 'pdf' | null {
  const lower = relative.toLowerCase();
  if (lower.endsWith('.md')) return 'markdown';
  if (lower.endsWith('.txt')) return 'text';
  if (lower.endsWith('.pdf')) return 'pdf';
  return null;
}

/** Every file's kind: what the indexer reads, else `other` (attachments, canvases, …). */
export function vaultFileKind(relative: string): VaultFileKind {
  return indexableKind(relative) ?? 'other';
}
