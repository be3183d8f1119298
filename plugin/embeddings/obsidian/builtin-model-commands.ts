import { Notice, requestUrl } from 'obsidian';
import type { Command, Plugin } from 'obsidian';
import type { BuiltinModelHost } from '../builtin-embedder';
import { builtinModelDir, checkModelFolder } from '../builtin-model-folder';
import type { FolderCheck } from '../builtin-model-folder';
import { downloadBuiltinModel } from '../builtin-model-download';
import type { BinaryFetch, ModelSource } from '../builtin-model-download';
import { companionSource, urlDownloadLabel, urlSource } from '../model-download-source';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';

/*
 * Obsidian's side of the built-in model: where its folder is (inside the plugin's own folder,
 * through `vault.adapter`), and the two download commands the settings tab's buttons run too:
 * from the paired companion, and from the model download URL (by default the project's
 * release). Nothing downloads unless one of them is run. The palette offers them only while
 * the model is not installed, the companion's only while a companion is configured.
 */

export const COMPANION_COMMAND_NAME = 'Download the built-in model from the companion';

/** Which download: from the paired companion, or from the model download URL. */
export type ModelRoute = 'companion' | 'url';

/** A shard is ~4 MB; on a slow line that can take a while, but never this long. */
const FILE_TIMEOUT_MS = 120_000;

function pluginDir(plugin: Plugin): string {
  return plugin.manifest.dir ?? `${plugin.app.vault.configDir}/plugins/${plugin.manifest.id}`;
}

export function builtinModelHost(plugin: Plugin): BuiltinModelHost {
  return {
    adapter: plugin.app.vault.adapter,
    dir: builtinModelDir(pluginDir(plugin)),
    // The worker stops when idle; its timer is released with the embedder (search's close).
    timers: {
      setTimeout: (callback, ms) => window.setTimeout(callback, ms),
      clearTimeout: (handle) => window.clearTimeout(handle as number),
    },
  };
}

/** What the settings tab and main.ts use of the built-in model's downloads. */
export interface BuiltinModelDownloads {
  check(): Promise<FolderCheck>;
  /** "Download the built-in model (28 MB) from github.com", for the current settings. */
  urlLabel(): string;
  /** Why `route` cannot download with the current settings (offline mode, no pairing…), or null. */
  blocked(route: ModelRoute): string | null;
  /** Downloads with progress in a notice; true once the folder is complete. Joins a running one. */
  download(route: ModelRoute): Promise<boolean>;
  /** Renames the URL command after its setting changed (the palette shows the host). */
  refreshCommandName(): void;
  /** Where the model's files are (inside the plugin's folder). */
  readonly dir: string;
  /** Deletes the model's folder; true when there was one. */
  remove(): Promise<boolean>;
}

export interface BuiltinModelOptions {
  settings: () => CairnSettings;
  /** Called after a download completed the folder, to load the model without a restart. */
  onInstalled: () => void;
}

export function setUpBuiltinModel(
  plugin: Plugin,
  options: BuiltinModelOptions,
): BuiltinModelDownloads {
  const version = plugin.manifest.version;
  const sourceFor = (route: ModelRoute): ModelSource | string =>
    route === 'companion'
      ? companionSource(options.settings())
      : urlSource(options.settings(), version);
  let running: Promise<boolean> | null = null;

  const downloads: BuiltinModelDownloads = {
    check: () => checkModelFolder(plugin.app.vault.adapter, builtinModelDir(pluginDir(plugin))),
    urlLabel: () => urlDownloadLabel(options.settings(), version),
    blocked: (route) => {
      const source = sourceFor(route);
      return typeof source === 'string' ? source : null;
    },
    download: (route) => {
      running ??= download(plugin, sourceFor(route), options).finally(() => (running = null));
      return running;
    },
    refreshCommandName: () => {
      // addCommand prefixes the name with the plugin's ("Cairn: "); keep whatever it added.
      const prefix = urlCommand.name.slice(0, urlCommand.name.length - urlCommandLabel.length);
      urlCommandLabel = downloads.urlLabel();
      urlCommand.name = `${prefix}${urlCommandLabel}`;
    },
    dir: builtinModelDir(pluginDir(plugin)),
    remove: async () => {
      const { adapter } = plugin.app.vault;
      if (!(await adapter.exists(downloads.dir))) return false;
      await adapter.rmdir(downloads.dir, true);
      installed = false;
      return true;
    },
  };

  // Offered only while there is something to download: known after the first folder check
  // (once the layout is ready: onload reads nothing), and set again by a completed download.
  let installed = false;
  plugin.app.workspace.onLayoutReady(() => {
    downloads.check().then(
      (check) => (installed = check.complete),
      () => undefined,
    );
  });
  const offer = (route: ModelRoute) => (checking: boolean) => {
    if (installed) return false;
    if (route === 'companion' && options.settings().companion.url.trim() === '') return false;
    if (!checking) {
      void downloads.download(route).then((done) => {
        if (done) installed = true;
      });
    }
    return true;
  };
  plugin.addCommand({
    id: 'download-builtin-model',
    name: COMPANION_COMMAND_NAME,
    checkCallback: offer('companion'),
  });
  let urlCommandLabel = downloads.urlLabel();
  const urlCommand: Command = plugin.addCommand({
    id: 'download-builtin-model-from-url',
    name: urlCommandLabel,
    checkCallback: offer('url'),
  });
  return downloads;
}

async function download(
  plugin: Plugin,
  source: ModelSource | string,
  options: BuiltinModelOptions,
): Promise<boolean> {
  if (typeof source === 'string') {
    new Notice(`Cairn: the built-in model was not downloaded: ${source}`, 15_000);
    return false;
  }
  const from = source.kind === 'companion' ? 'the companion' : new URL(source.baseUrl).host;
  const progress = new Notice(`Cairn: downloading the built-in model from ${from}…`, 0);
  try {
    await downloadBuiltinModel({
      adapter: plugin.app.vault.adapter,
      dir: builtinModelDir(pluginDir(plugin)),
      source,
      fetch: obsidianBinaryFetch,
      onProgress: ({ file, index, count, doneBytes, totalBytes }) =>
        progress.setMessage(
          `Cairn: downloading the built-in model from ${from}… ${Math.round((100 * doneBytes) / totalBytes)}% (file ${index} of ${count}: ${file})`,
        ),
    });
    progress.hide();
  } catch (error) {
    progress.hide();
    new Notice(
      `Cairn: the built-in model download stopped: ${error instanceof Error ? error.message : String(error)}. Files already downloaded are kept; run it again to resume.`,
      0,
    );
    return false;
  }
  const builtin = options.settings().embeddings.provider === 'builtin';
  new Notice(
    builtin
      ? 'Cairn: the built-in model is installed. Search loads it now and adds search by meaning while it indexes.'
      : 'Cairn: the built-in model is installed. To use it, choose "Built-in model" as the embedding provider in Cairn’s settings.',
    10_000,
  );
  options.onInstalled();
  return true;
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
