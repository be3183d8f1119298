import type { IndexProgress } from './device-indexer';

/** The status-bar words for the indexer's progress; empty when there is nothing to say. */
export function describeIndexProgress(progress: IndexProgress): string {
  const count = (n: number) => n.toLocaleString('en');
  switch (progress.phase) {
    case 'loading':
      return progress.total > 0
        ? `Cairn: loading index ${count(progress.done)}/${count(progress.total)}`
        : 'Cairn: loading index';
    case 'indexing':
      return `Cairn: indexing ${count(progress.done)}/${count(progress.total)}`;
    case 'embedding':
      return `Cairn: embedding ${count(progress.done)}/${count(progress.total)}`;
    case 'idle':
      return '';
  }
}
