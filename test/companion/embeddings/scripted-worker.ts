/**
 * A tiny worker speaking the embedding-worker protocol, written to disk as plain JavaScript, so
 * tests can make a worker fail on cue — deterministically and without loading a model:
 *
 * - the text `crash` makes the worker exit with code 3 (every time);
 * - `crash-once` does so only the first time (a marker file remembers it across restarts);
 * - `fail` makes it answer the batch with an `error` message;
 * - `slow:<ms>` blocks the worker that long (a long batch of real texts);
 * - any other text gets the vector [length of the text, batch number, thread id, 0, …].
 *
 * `workerData`: `{ dims, markerFile, fatal?: string, modelId?, fatalOnRestart?: string }`;
 * `fatal` makes loading fail; `fatalOnRestart` makes every load after the first fail (a second
 * marker file remembers the first).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/corpora';

const source = `
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { existsSync, writeFileSync } from 'node:fs';
const { dims, markerFile, fatal, modelId, fatalOnRestart } = workerData;
if (fatalOnRestart && existsSync(markerFile + '.started')) {
  parentPort.postMessage({ type: 'fatal', message: fatalOnRestart });
  process.exit(1);
}
if (fatalOnRestart) writeFileSync(markerFile + '.started', 'started');
if (fatal) {
  parentPort.postMessage({ type: 'fatal', message: fatal });
  process.exit(1);
}
let batch = 0;
parentPort.on('message', ({ id, texts }) => {
  batch++;
  if (texts.includes('crash')) process.exit(3);
  if (texts.includes('crash-once') && !existsSync(markerFile)) {
    writeFileSync(markerFile, 'crashed');
    process.exit(3);
  }
  for (const text of texts) {
    if (text.startsWith('slow:')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(text.slice(5)));
  }
  if (texts.includes('fail')) {
    parentPort.postMessage({ type: 'error', id, message: 'scripted failure' });
    return;
  }
  const vectors = texts.map((text) => {
    const v = new Float32Array(dims);
    v[0] = text.length;
    v[1] = batch;
    v[2] = threadId;
    return v;
  });
  parentPort.postMessage({ type: 'vectors', id, vectors }, vectors.map((v) => v.buffer));
});
parentPort.postMessage({ type: 'ready', model: { id: modelId ?? 'scripted', dims } });
`;

export function writeScriptedWorker(): { workerFile: URL; markerFile: string } {
  const cache = join(repoRoot, 'node_modules', '.cache', 'cairn-test-workers');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'scripted-'));
  const file = join(dir, 'scripted.worker.mjs');
  writeFileSync(file, source);
  return { workerFile: pathToFileURL(file), markerFile: join(dir, 'crashed.marker') };
}
