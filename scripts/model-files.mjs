// The built-in model's files as the scripts see them: the list the plugin checks its model folder
// against (shared/embeddings/use-lite-files.json) and where each file is installed in
// node_modules. Used by install-plugin --with-model and release-assets.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `{ name, package, bytes, sha256 }` for each file, in the plugin's order. */
export const MODEL_FILES = JSON.parse(
  readFileSync(join(repoRoot, 'shared/embeddings/use-lite-files.json'), 'utf8'),
).files;

export const MODEL_TOTAL_BYTES = MODEL_FILES.reduce((sum, file) => sum + file.bytes, 0);

const resolveFromRepo = createRequire(join(repoRoot, 'package.json'));

/** The path of `file` in node_modules; throws a message naming the package when it is missing. */
export function installedModelFile(file) {
  try {
    return resolveFromRepo.resolve(`${file.package}/dist/${file.name}`);
  } catch {
    throw new Error(
      `${file.package} is not installed, so ${file.name} cannot be copied; run npm ci first.`,
    );
  }
}
