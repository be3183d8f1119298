import { USE_LITE_WEIGHT_FILES, type UseLiteFile } from '../../shared/embeddings/use-lite-files';

/*
 * The folder the built-in model lives in: `<plugin folder>/models/use-lite/`, reached through
 * Obsidian's `vault.adapter` (raw paths, so it works on mobile, and files under the config folder
 * are never indexed or synced as notes). The weights cannot ride inside main.js; they are
 * data, never code (the wasm binaries that run them are embedded in main.js), and are
 * downloaded (from the model download URL or the companion) when the user asks, or copied by
 * `npm run install-plugin -- --with-model`.
 */

/** The part of Obsidian's `DataAdapter` the model folder needs; `app.vault.adapter` fits it. */
export interface ModelFolderAdapter {
  exists(path: string): Promise<boolean>;
  stat(path: string): Promise<{ size: number } | null>;
  readBinary(path: string): Promise<ArrayBuffer>;
  writeBinary(path: string, data: ArrayBuffer): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
}

/** Where the model goes, given the plugin's own folder (`manifest.dir`). */
export function builtinModelDir(pluginDir: string): string {
  return `${pluginDir.replace(/\/+$/, '')}/models/use-lite`;
}

/**
 * What the user can do about a missing or incomplete model; shown wherever it is missing (the
 * search modal, the chat's footer), so it names what to press, not a developer command.
 */
export const INSTALL_HINT =
  'download it under Settings → Cairn → Search and related notes, or with "Download the built-in model" in the command palette';

export interface FolderProblem {
  readonly name: string;
  /** `missing`, or what is wrong with the file that is there. */
  readonly problem: string;
}

export type FolderCheck =
  | { readonly complete: true }
  | {
      readonly complete: false;
      readonly problems: readonly FolderProblem[];
      readonly message: string;
    };

/**
 * Checks that every file is there with its expected size (cheap: no reading; the download
 * checks contents). The message names each missing or wrong file.
 */
export async function checkModelFolder(
  adapter: Pick<ModelFolderAdapter, 'exists' | 'stat'>,
  dir: string,
): Promise<FolderCheck> {
  const problems: FolderProblem[] = [];
  for (const file of USE_LITE_WEIGHT_FILES) {
    const problem = await fileProblem(adapter, `${dir}/${file.name}`, file);
    if (problem) problems.push({ name: file.name, problem });
  }
  if (problems.length === 0) return { complete: true };
  return { complete: false, problems, message: folderMessage(dir, problems) };
}

async function fileProblem(
  adapter: Pick<ModelFolderAdapter, 'exists' | 'stat'>,
  path: string,
  file: UseLiteFile,
): Promise<string | undefined> {
  if (!(await adapter.exists(path))) return 'missing';
  const stat = await adapter.stat(path);
  if (!stat) return 'missing';
  if (stat.size !== file.bytes) return `${stat.size} bytes, expected ${file.bytes}`;
  return undefined;
}

function folderMessage(dir: string, problems: readonly FolderProblem[]): string {
  if (
    problems.length === USE_LITE_WEIGHT_FILES.length &&
    problems.every((p) => p.problem === 'missing')
  ) {
    return `the built-in model is not installed: ${INSTALL_HINT}`;
  }
  const missing = problems.filter((p) => p.problem === 'missing').map((p) => p.name);
  const wrong = problems
    .filter((p) => p.problem !== 'missing')
    .map((p) => `${p.name} is ${p.problem}`);
  const parts = [...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []), ...wrong];
  return `the built-in model in ${dir} is incomplete (${parts.join('; ')}): ${INSTALL_HINT}`;
}

/** The model's bytes as the worker takes them (each buffer is transferred, not copied). */
export interface BuiltinModelPayload {
  readonly modelJson: ArrayBuffer;
  readonly vocab: ArrayBuffer;
  readonly shards: [string, ArrayBuffer][];
}

/** Reads a complete folder (check it first); a file that went missing since is named. */
export async function readModelFolder(
  adapter: Pick<ModelFolderAdapter, 'readBinary'>,
  dir: string,
): Promise<BuiltinModelPayload> {
  const read = async (name: string): Promise<ArrayBuffer> => {
    try {
      return await adapter.readBinary(`${dir}/${name}`);
    } catch (error) {
      throw new Error(
        `cannot read ${dir}/${name} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  };
  const shardNames = USE_LITE_WEIGHT_FILES.filter((file) => file.name.startsWith('group')).map(
    (file) => file.name,
  );
  const shards: [string, ArrayBuffer][] = [];
  for (const name of shardNames) shards.push([name, await read(name)]);
  return {
    modelJson: await read('model.json'),
    vocab: await read('vocab.json'),
    shards,
  };
}
