#!/usr/bin/env node
// `npm start`: the companion on a copy of the bundled sample vault, so whatever you do in the
// phone page, the API or MCP (reminders done, notes written, chats saved) changes the copy in
// .cairn-sample/ and never the repository's companion/sample-vault. Delete .cairn-sample/ to
// start afresh. The companion's data (index, token, keys) lives in .cairn-data/.
import { spawn } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const source = join(repo, 'companion/sample-vault');
// The folder's name is the vault's name in obsidian:// links, so the copy keeps it.
const vault = join(repo, '.cairn-sample/sample-vault');

if (!existsSync(vault)) {
  cpSync(source, vault, { recursive: true });
  console.log(
    `Copied ${relative(repo, source)} to ${relative(repo, vault)}; the companion serves the copy.`,
  );
} else {
  console.log(
    `Serving ${relative(repo, vault)} (a copy of ${relative(repo, source)}; delete it to start afresh).`,
  );
}

const child = spawn(
  process.execPath,
  [
    join(repo, 'dist/companion/cli.mjs'),
    '--vault',
    vault,
    '--data',
    join(repo, '.cairn-data'),
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
  },
);
// Ctrl+C reaches the whole process group; a SIGTERM sent to npm alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
