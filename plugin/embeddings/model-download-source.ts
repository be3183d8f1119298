import { USE_LITE_WEIGHT_BYTES } from '../../shared/embeddings/use-lite-files';
import { releaseAssetsUrl } from '../release-info';
import type { CairnSettings } from '../../shared/settings/cairn-settings';
import {
  checkHttpUrl,
  checkModelDownloadUrl,
  offlineModeViolation,
} from '../../shared/settings/validation';
import type { ModelSource } from './builtin-model-download';

/*
 * Where the built-in model may be downloaded from right now, decided from the settings alone
 * (no request): the paired companion, or the model download URL (by default the project's
 * release assets for this plugin's version). Either answers a source, or why not in words the
 * settings tab and the command's notice show as they are.
 */

type SourceSettings = Pick<CairnSettings, 'companion' | 'embeddings' | 'privacy'>;

/** The URL the model files are fetched from: the setting, or the release of `version`. */
export function modelDownloadUrl(
  settings: Pick<CairnSettings, 'embeddings'>,
  version: string,
): string {
  const url = settings.embeddings.modelDownloadUrl.trim();
  return url === '' ? releaseAssetsUrl(version) : url;
}

/** "28 MB": the download's size (the weights) as the button and the docs say it. */
export const MODEL_SIZE_TEXT = `${Math.round(USE_LITE_WEIGHT_BYTES / 1_000_000)} MB`;

/** The URL route's button and command text, naming the size and the host it contacts. */
export function urlDownloadLabel(
  settings: Pick<CairnSettings, 'embeddings'>,
  version: string,
): string {
  const checked = checkHttpUrl(modelDownloadUrl(settings, version));
  const host = checked.ok ? checked.host : 'the model download URL';
  return `Download the built-in model (${MODEL_SIZE_TEXT}) from ${host}`;
}

/** The download URL as a source, or why it cannot be used (invalid, or blocked by offline mode). */
export function urlSource(settings: SourceSettings, version: string): ModelSource | string {
  const checked = checkModelDownloadUrl(modelDownloadUrl(settings, version));
  if (!checked.ok) return `${checked.message} (Settings → Cairn → Search and related notes)`;
  const blocked = offlineModeViolation(checked.url, settings.privacy.offlineMode);
  if (blocked) {
    return `${blocked} It is under Settings → Cairn → Privacy and data. Or copy the model files to a server on your local network and set the model download URL to it.`;
  }
  return { kind: 'url', baseUrl: checked.url };
}

/** The paired companion as a source, or why it cannot be used. */
export function companionSource(settings: SourceSettings): ModelSource | string {
  if (settings.companion.url.trim() === '' || settings.companion.token.trim() === '') {
    return 'no companion is paired (Settings → Cairn → Companion)';
  }
  const checked = checkHttpUrl(settings.companion.url);
  if (!checked.ok) return `Companion URL: ${checked.message}`;
  const blocked = offlineModeViolation(checked.url, settings.privacy.offlineMode);
  if (blocked) return blocked;
  return { kind: 'companion', url: checked.url, token: settings.companion.token };
}
