/**
 * What the plugin knows about its companion, as one tagged union so every screen (status
 * bar, chat pane, settings) shows the same words for the same situation.
 */

export interface CompanionStatusSummary {
  version: string;
  files: number;
  pending: number;
  failed: number;
  /** e.g. `use-lite (512 dims)`; null when the companion reports no embedding model. */
  embedding: string | null;
  /**
   * Semantic search readiness (`index.semantic`): "semantic search: 40 % ready" is
   * `embedded / total`; null from companions that do not report it.
   */
  semantic?: SemanticSummary | null;
}

export interface SemanticSummary {
  state: 'ready' | 'embedding' | 'off';
  provider: 'builtin' | 'ollama' | 'none';
  embedded: number;
  total: number;
  /** Why it is off (or that embedding failed); null otherwise. */
  reason: string | null;
}

export type ConnectionState =
  | { kind: 'not-configured' }
  | { kind: 'checking' }
  | { kind: 'invalid-url'; message: string }
  | { kind: 'blocked-offline'; message: string }
  | { kind: 'unreachable'; message: string }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'unexpected'; message: string }
  | { kind: 'connected'; status: CompanionStatusSummary };

export type ConnectionTone = 'ok' | 'pending' | 'warning' | 'error' | 'muted';

export interface ConnectionDescription {
  /** A few words for the status bar. */
  label: string;
  /** A sentence for the chat pane and the settings tab. */
  detail: string;
  tone: ConnectionTone;
}

export function describeConnection(state: ConnectionState): ConnectionDescription {
  switch (state.kind) {
    case 'not-configured':
      return {
        label: 'Cairn: local only',
        detail:
          'No companion configured. Cairn works on this device; add a companion in settings to get reminders on your phone while Obsidian is closed.',
        tone: 'muted',
      };
    case 'checking':
      return { label: 'Cairn: connecting…', detail: 'Checking the companion…', tone: 'pending' };
    case 'invalid-url':
      return { label: 'Cairn: check settings', detail: state.message, tone: 'error' };
    case 'blocked-offline':
      return { label: 'Cairn: blocked (offline mode)', detail: state.message, tone: 'warning' };
    case 'unreachable':
      return {
        label: 'Cairn: companion unreachable',
        detail: `The companion did not answer: ${state.message}`,
        tone: 'error',
      };
    case 'unauthorized':
      return { label: 'Cairn: token rejected', detail: state.message, tone: 'error' };
    case 'unexpected':
      return { label: 'Cairn: companion error', detail: state.message, tone: 'error' };
    case 'connected': {
      const { status } = state;
      const indexing =
        status.pending > 0 ? `, ${status.pending} waiting to be indexed` : ', index up to date';
      const failed = status.failed > 0 ? `, ${status.failed} could not be read` : '';
      return {
        label: 'Cairn: connected',
        detail: `Connected to companion ${status.version}: ${status.files} files${indexing}${failed}.`,
        tone: status.failed > 0 ? 'warning' : 'ok',
      };
    }
  }
}
