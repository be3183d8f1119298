// Runs independent check commands side by side (`npm run typecheck`, `npm run lint`, and in
// `npm test` the lint beside vitest): each check is one process on one core, so on a 2-core
// machine two of them take about the time of one, and vitest's two workers leave a core idle
// often enough (child processes, sockets, Chromium, timers) for the lint to use it.
// Each command's output is printed whole when it ends, then a line with its time; the exit
// code is non-zero if any command failed.
//   node scripts/parallel.mjs "eslint ." "prettier --check ."
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/parallel.mjs "<command>" ["<command>" …]\n');
  process.exit(2);
}

function run(command) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      resolve({ command, code: 1, output, seconds: (Date.now() - started) / 1000 });
    });
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      resolve({ command, code: code ?? (signal ? 1 : 0), output, seconds });
    });
  }).then((result) => {
    process.stdout.write(Buffer.concat(result.output));
    const verdict = result.code === 0 ? 'ok' : `failed (exit ${result.code})`;
    process.stdout.write(`> ${command}: ${verdict} in ${result.seconds.toFixed(1)} s\n`);
    return result;
  });
}

const results = await Promise.all(commands.map(run));
const failed = results.filter((result) => result.code !== 0);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.map((result) => result.command).join('; ')}\n`);
  process.exit(1);
}
