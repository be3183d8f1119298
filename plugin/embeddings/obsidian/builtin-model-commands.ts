import { Notice, requestUrl } from 'obsidian';
import type { Plugin } from 'obsidian';
import type { BuiltinModelHost } from '../builtin-embedder';
import { builtinModelDir, checkModelFolder } from '../builtin-model-folder';
import type { FolderCheck } from '../builtin-model-folder';
import { downloadBuiltinModel } from '../builtin-model-download';
import type { BinaryFetch } from '../builtin-model-download';
import type { CairnSettings } from '../../settings/settings';
import { checkHttpUrl, offlineModeViolation } from '../../settings/validation';

/*
 * Obsidian's side of the built-in model: where its folder is (inside the plugin's own folder,
 * through `vault.adapter`), and the "Download the built-in model from the companion" command
 * that the settings tab's button runs too.
 */

export const DOWNLOAD_COMMAND_NAME = 'Download the built-in model from the companion';

/** A shard is ~4 MB; on a slow LAN that can take a while, but never this long. */
const FILE_TIMEOUT_MS = 120_000;

function pluginDir(plugin: Plugin): string {
  return plugin.manifest.dir ?? `${plugin.app.vault.configDir}/plugins/${plugin.manifest.id}`;
}

export function builtinModelHost(plugin: Plugin): BuiltinModelHost {
  return { adapter: plugin.app.vault.adapter, dir: builtinModelDir(pluginDir(plugin)) };
}

export function checkBuiltinModel(plugin: Plugin): Promise<FolderCheck> {
  return checkModelFolder(plugin.app.vault.adapter, builtinModelDir(pluginDir(plugin)));
}

export function registerBuiltinModelCommand(plugin: Plugin, settings: () => CairnSettings): void {
  plugin.addCommand({
    id: 'download-builtin-model',
    name: DOWNLOAD_COMMAND_NAME,
    callback: () => void downloadBuiltinModelWithNotice(plugin, settings()),
  });
}

let running: Promise<boolean> | null = null;

/**
 * Downloads the model from the paired companion with its progress in a notice; resolves true
 * when the folder is complete. A second call while one runs joins it.
 */
export function downloadBuiltinModelWithNotice(
  plugin: Plugin,
  settings: CairnSettings,
): Promise<boolean> {
  running ??= download(plugin, settings).finally(() => (running = null));
  return running;
}

async function download(plugin: Plugin, settings: CairnSettings): Promise<boolean> {
  const companion = companionEndpoint(settings);
  if (typeof companion === 'string') {
    new Notice(`Cairn: cannot download the built-in model: ${companion}`);
    return false;
  }
  const progress = new Notice('Cairn: downloading the built-in model…', 0);
  try {
    await downloadBuiltinModel({
      adapter: plugin.app.vault.adapter,
      dir: builtinModelDir(pluginDir(plugin)),
      companionUrl: companion.url,
      token: companion.token,
      fetch: obsidianBinaryFetch,
      onProgress: ({ file, index, count, doneBytes, totalBytes }) =>
        progress.setMessage(
          `Cairn: downloading the built-in model… ${Math.round((100 * doneBytes) / totalBytes)}% (file ${index} of ${count}: ${file})`,
        ),
    });
    progress.hide();
    new Notice(
      'Cairn: the built-in model is installed. Search uses it from the next start of the plugin (or of the app).',
      10_000,
    );
    return true;
  } catch (error) {
    progress.hide();
    new Notice(
      `Cairn: the built-in model download stopped: ${error instanceof Error ? error.message : String(error)}`,
      0,
    );
    return false;
  }
}

function companionEndpoint(settings: CairnSettings): { url: string; token: string } | string {
  if (settings.companion.url.trim() === '' || settings.companion.token.trim() === '') {
    return 'no companion is paired (Settings → Cairn → Companion)';
  }
  const checked = checkHttpUrl(settings.companion.url);
  if (!checked.ok) return `Companion URL: ${checked.message}`;
  const blocked = offlineModeViolation(checked.url, settings.privacy.offlineMode);
  if (blocked) return blocked;
  return { url: checked.url, token: settings.companion.token };
}

/** `requestUrl` (no CORS, works on mobile) as bytes; it cannot be cancelled, so a timeout races it. */
const obsidianBinaryFetch: BinaryFetch = async (url, headers) => {
  let timer: number | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = window.setTimeout(
      () => reject(new Error(`no answer within ${FILE_TIMEOUT_MS / 1000} s`)),
      FILE_TIMEOUT_MS,
    );
  });
  try {
    const response = await Promise.race([
      requestUrl({ url, method: 'GET', headers, throw: false }),
      timeout,
    ]);
    const length = Object.entries(response.headers).find(
      ([name]) => name.toLowerCase() === 'content-length',
    )?.[1];
    return {
      status: response.status,
      body: response.arrayBuffer,
      ...(length === undefined ? {} : { contentLength: Number(length) }),
    };
  } finally {
    window.clearTimeout(timer);
  }
};
