#!/usr/bin/env node
// Copies the built plugin (main.js, manifest.json, styles.css) into a vault:
//   npm run install-plugin -- <path-to-vault> [--build] [--source <dir>] [--with-model]
// --build runs the release build first; --source takes the files from another folder
// (a CI artefact, say) instead of the repository root; --with-model also copies the built-in
// embedding model (29 MB, from node_modules) into the plugin's models/use-lite/ folder.
// data.json in the vault's plugin folder (the user's settings) is never touched.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedModelFile, MODEL_FILES, MODEL_TOTAL_BYTES } from './model-files.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ARTEFACTS = ['main.js', 'manifest.json', 'styles.css'];
const USAGE =
  'Usage: npm run install-plugin -- <path-to-vault> [--build] [--source <dir>] [--with-model]';

function fail(message) {
  console.error(`install-plugin: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { vault: null, build: false, source: repoRoot, withModel: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg === '--build') {
      options.build = true;
    } else if (arg === '--with-model') {
      options.withModel = true;
    } else if (arg === '--source') {
      const value = argv[++i];
      if (!value) fail(`--source needs a folder.\n${USAGE}`);
      options.source = resolve(value);
    } else if (arg.startsWith('-')) {
      fail(`unknown option ${arg}.\n${USAGE}`);
    } else if (options.vault === null) {
      options.vault = resolve(arg);
    } else {
      fail(`one vault at a time; got "${options.vault}" and "${arg}".\n${USAGE}`);
    }
  }
  if (options.vault === null) fail(`no vault given.\n${USAGE}`);
  return options;
}

function isDirectory(path) {
  return existsSync(path) && statSync(path).isDirectory();
}

const options = parseArgs(process.argv.slice(2));

if (!isDirectory(options.vault)) fail(`${options.vault} is not a folder.`);
const configDir = join(options.vault, '.obsidian');
if (!isDirectory(configDir)) {
  fail(
    `${options.vault} has no .obsidian folder, so it is not an Obsidian vault (open it in Obsidian once, then run this again).`,
  );
}

if (options.build) {
  // The esbuild step of `npm run build` (the repo-wide typecheck is left to `npm run build`).
  console.log('install-plugin: building (node esbuild.config.mjs production)…');
  const result = spawnSync(process.execPath, ['esbuild.config.mjs', 'production'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0)
    fail(`the build failed (exit code ${result.status}); nothing was copied.`);
}

const missing = ARTEFACTS.filter((name) => !existsSync(join(options.source, name)));
if (missing.length > 0) {
  fail(
    `${missing.join(', ')} missing in ${options.source}; run \`npm run build\` or pass --build.`,
  );
}

let pluginId;
try {
  pluginId = JSON.parse(readFileSync(join(options.source, 'manifest.json'), 'utf8')).id;
} catch (error) {
  fail(`cannot read manifest.json in ${options.source}: ${error.message}`);
}
if (typeof pluginId !== 'string' || !/^[a-z0-9-]+$/.test(pluginId)) {
  fail(`manifest.json has no usable "id" (found ${JSON.stringify(pluginId)}).`);
}

const target = join(configDir, 'plugins', pluginId);
mkdirSync(target, { recursive: true });
for (const name of ARTEFACTS) {
  copyFileSync(join(options.source, name), join(target, name));
  const size = statSync(join(target, name)).size;
  console.log(`install-plugin: copied ${name} (${size.toLocaleString('en')} bytes)`);
}
if (options.withModel) copyModel(join(target, 'models', 'use-lite'));
console.log(`install-plugin: installed ${pluginId} into ${target}`);
console.log(
  'install-plugin: in Obsidian, enable it under Settings → Community plugins (or reload the app if it was already on).',
);

/**
 * Copies the model files from the installed npm packages. Each goes under a temporary name first,
 * so an interrupted copy never leaves a file that looks complete; sizes are checked against the
 * list the plugin checks its folder with.
 */
function copyModel(modelDir) {
  mkdirSync(modelDir, { recursive: true });
  for (const file of MODEL_FILES) {
    let from;
    try {
      from = installedModelFile(file);
    } catch (error) {
      fail(error.message);
    }
    const size = statSync(from).size;
    if (size !== file.bytes) {
      fail(
        `${from} is ${size} bytes, not the ${file.bytes} the plugin expects (another version?).`,
      );
    }
    const to = join(modelDir, file.name);
    copyFileSync(from, `${to}.download`);
    renameSync(`${to}.download`, to);
  }
  console.log(
    `install-plugin: copied the built-in model (${MODEL_FILES.length} files, ${MODEL_TOTAL_BYTES.toLocaleString('en')} bytes) into ${modelDir}`,
  );
}
