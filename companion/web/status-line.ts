import { isRecord } from '../../shared/protocol/json';

/**
 * The one line under the title that says what the companion can do right now, read from
 * `GET /api/v1/status`. Tolerant by design: older companions lack `index.semantic`, and a phone
 * must not break on a field it does not know yet.
 */
export function describeStatus(status: unknown): string {
  if (!isRecord(status)) return '';
  const index = isRecord(status.index) ? status.index : {};
  const files = typeof index.files === 'number' ? index.files : 0;
  const pending = typeof index.pending === 'number' ? index.pending : 0;
  const parts = [`${files} ${files === 1 ? 'note' : 'notes'}`];
  if (pending > 0) parts.push(`indexing ${pending} more`);
  const semantic = describeSemantic(index.semantic);
  if (semantic !== null) parts.push(semantic);
  return parts.join(' · ');
}

function describeSemantic(semantic: unknown): string | null {
  if (!isRecord(semantic)) return null;
  const reason =
    typeof semantic.reason === 'string' && semantic.reason !== '' ? semantic.reason : null;
  switch (semantic.state) {
    case 'ready':
      return 'Semantic search ready';
    case 'embedding': {
      const embedded = typeof semantic.embedded === 'number' ? semantic.embedded : 0;
      const total = typeof semantic.total === 'number' ? semantic.total : 0;
      if (total <= 0) return 'Semantic search starting';
      const percent = Math.min(100, Math.floor((embedded / total) * 100));
      return `Semantic search ${percent} % ready`;
    }
    case 'off':
      return reason === null ? 'Keyword search only' : `Keyword search only: ${reason}`;
    default:
      return null;
  }
}
