import { CompanionClient } from '../connection/client';
import type { HttpTransport } from '../connection/http-transport';
import type { CairnSettings } from '../../shared/settings/cairn-settings';
import { checkHttpUrl, offlineModeViolation } from '../../shared/settings/validation';
import type { BuiltinModelHost } from './builtin-embedder';
import type { EmbedderChoice } from './embedder-choice';
import { CompanionEmbedder } from './companion-embedder';
import { OllamaEmbedder } from './ollama-embedder';

export type { EmbedderChoice };

/**
 * Turns the `embeddings.provider` setting into an Embedder, checking it answers. Failures are
 * not errors: search falls back to keyword only and the reason is shown.
 */
export async function selectEmbedder(
  settings: Pick<CairnSettings, 'embeddings' | 'companion' | 'ollama' | 'privacy'>,
  transport: HttpTransport,
  /** Where the built-in model lives; without it, `builtin` falls back to keyword search. */
  builtin?: BuiltinModelHost,
): Promise<EmbedderChoice> {
  const provider = settings.embeddings.provider;
  try {
    switch (provider) {
      case 'none':
        return { kind: 'none', reason: 'embeddings are off in settings' };
      case 'builtin': {
        if (!builtin) return { kind: 'none', reason: 'the built-in model has no folder here' };
        // Loaded on demand: the worker code is reached only when this provider is chosen.
        const { startBuiltinEmbedder } = await import('./builtin-embedder');
        return await startBuiltinEmbedder(builtin);
      }
      case 'companion': {
        const url = checkedUrl(
          settings.companion.url,
          'Companion URL',
          settings.privacy.offlineMode,
        );
        if (settings.companion.token.trim() === '')
          return { kind: 'none', reason: 'the companion is not paired (no token)' };
        const client = new CompanionClient(transport, () => ({
          url,
          token: settings.companion.token,
          offlineMode: settings.privacy.offlineMode,
        }));
        const embedder = await CompanionEmbedder.connect(client);
        return { kind: 'active', embedder, label: embedder.model.id };
      }
      case 'ollama': {
        const url = checkedUrl(settings.ollama.url, 'Ollama URL', settings.privacy.offlineMode);
        const embedder = await OllamaEmbedder.connect(transport, url, settings.ollama.embedModel);
        return { kind: 'active', embedder, label: embedder.model.id };
      }
    }
  } catch (error) {
    return { kind: 'none', reason: error instanceof Error ? error.message : String(error) };
  }
}

function checkedUrl(value: string, field: string, offlineMode: boolean): string {
  if (value.trim() === '') throw new Error(`${field} is empty`);
  const checked = checkHttpUrl(value);
  if (!checked.ok) throw new Error(`${field}: ${checked.message}`);
  const blocked = offlineModeViolation(checked.url, offlineMode);
  if (blocked) throw new Error(blocked);
  return checked.url;
}
