#!/usr/bin/env node
// `npm run sync-sim`: the deterministic multi-device simulation of Cairn Sync
// (scripts/sync-sim/simulation.ts says what one run does and what it checks).
//
//   node scripts/sync-sim.mjs [--runs 300] [--seed 1] [--ops N] [--faults 1] [--workers W] [--trace]
//                             [--blob-batch 1] [--known-failing S,S] [--digest]
//
// --digest: one line per run, `seed S ops N … digest H`, H a hash of what the run did and ended
// with (simulation.ts, finalDigest): two versions of the harness replay the same seeds alike
// when these lines are the same.
//
// --known-failing S,S: seeds still failing (each an `it.fails` in
// test/scripts/sync-sim/open-seeds.test.ts); .ci/run passes them so a new failure fails CI.
//
// --blob-batch N: the devices' engines fetch downloads N at a time (`POST blobs/batch`); 1 (the
// default) keeps one `GET blobs` per download, the interleavings the recorded seeds replay.
//
// With --workers W (default: 1), the runs are split into W contiguous seed ranges, each run in a
// worker process of its own (one companion app each); results are the same as one process's.
//
// Run i uses seed S+i, so `--runs 1 --seed S+i` replays it exactly. A failing run is shrunk to
// the fewest user ops that still fail, and the command replaying that is printed. The last line
// is always the summary:
//   sync-sim: runs 300, ops 61234, lost 0, diverged 0, resurrected 0, false conflicts 0
// and the exit code is non-zero when any run failed (with --known-failing: any run but those
// seeds, or one of those seeds that passes now).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleForNode } from './bundle-for-node.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    ops: { type: 'string' },
    faults: { type: 'string', default: '1' },
    'blob-batch': { type: 'string', default: '1' },
    trace: { type: 'boolean', default: false },
    'no-shrink': { type: 'boolean', default: false },
    digest: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    /** Seeds known to fail (test/scripts/sync-sim/open-seeds.test.ts): CI passes if only these do. */
    'known-failing': { type: 'string', default: '' },
    /** Internal: this process is a worker running its share of the runs. */
    worker: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(
    'npm run sync-sim -- [--runs 300] [--seed 1] [--ops N] [--faults 1] [--workers W] [--trace] [--blob-batch 1] [--known-failing S,S] [--digest]',
  );
  process.exit(0);
}
const runs = Number(values.runs);
const seed = Number(values.seed);
const maxOps = values.ops === undefined ? undefined : Number(values.ops);
const faults = Number(values.faults);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a positive integer, got ${values.runs}`);
if (!Number.isInteger(seed) || seed < 0)
  throw new Error(`--seed must be an integer ≥ 0, got ${values.seed}`);
if (maxOps !== undefined && !(Number.isInteger(maxOps) && maxOps >= 0))
  throw new Error(`--ops must be an integer ≥ 0, got ${values.ops}`);
if (!(faults >= 0 && faults <= 10))
  throw new Error(`--faults must be in [0, 10], got ${values.faults}`);
const blobsPerBatch = Number(values['blob-batch']);
if (!Number.isInteger(blobsPerBatch) || blobsPerBatch < 1 || blobsPerBatch > 256)
  throw new Error(`--blob-batch must be an integer in [1, 256], got ${values['blob-batch']}`);
const knownFailing = new Set(
  values['known-failing']
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => {
      const known = Number(part);
      if (!Number.isInteger(known) || known < 0)
        throw new Error(
          `--known-failing takes seeds (integers ≥ 0) separated by commas, got ${part}`,
        );
      return known;
    }),
);
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1 || workers > 64)
  throw new Error(`--workers must be an integer in [1, 64], got ${values.workers}`);

// A worker loads the bundle its parent built (building it again at once would race on the file).
const bundle = values.worker
  ? {
      load: (name) =>
        import(new URL(`../node_modules/.cache/cairn-sync-sim/${name}.mjs`, import.meta.url).href),
    }
  : await bundleForNode('cairn-sync-sim', { simulation: 'scripts/sync-sim/simulation.ts' });
const { runOne, runSimulation, shrink, summaryLine, failed } = await bundle.load('simulation');

/** A range of runs, as one process or a worker runs it. */
const rangeOptions = { runs, seed, maxOps, faults, blobsPerBatch, digest: values.digest };

if (values.worker) {
  // Runs its range and sends each result to the parent.
  const summary = await runSimulation({
    ...rangeOptions,
    onRun: (result) => process.send?.({ kind: 'run', result }),
  });
  process.send?.({ kind: 'done', runs: summary.runs });
  process.exit(0);
}

const started = Date.now();
if (values.trace) {
  // One run, every step printed.
  const result = await runOne(seed, {
    maxOps,
    faults,
    blobsPerBatch,
    trace: (line) => console.log(`  ${line}`),
  });
  if (failed(result)) report(result);
  const summary = {
    runs: 1,
    ops: result.ops,
    lost: result.lost.length,
    diverged: result.diverged.length,
    resurrected: result.resurrected.length,
    falseConflicts: result.falseConflicts.length,
  };
  console.log(summaryLine(summary));
  process.exit(failed(result) ? 1 : 0);
}

let finished = 0;
const onRun = (result) => {
  if (values.digest) console.log(digestLine(result));
  if (failed(result)) report(result);
  finished++;
  if (finished % 50 === 0) {
    console.log(`  … ${finished} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
};
const summary =
  workers === 1 ? await runSimulation({ ...rangeOptions, onRun }) : await runInWorkers(onRun);
const newFailures = summary.failures.filter((failure) => !knownFailing.has(failure.seed));
for (const failure of newFailures.slice(0, 3)) {
  if (values['no-shrink']) break;
  const shrunk = await shrink(failure.seed, failure.ops, blobsPerBatch);
  console.log(
    `seed ${failure.seed} shrinks to ${shrunk.maxOps} ops; replay: npm run sync-sim -- --runs 1 --seed ${failure.seed} --ops ${shrunk.maxOps}${blobsPerBatch === 1 ? '' : ` --blob-batch ${blobsPerBatch}`} --trace`,
  );
}
// A known failing seed that passes now is said too: the list (and open-seeds.test.ts) must stay
// true, so it fails the command as a new failure does.
const failingSeeds = new Set(summary.failures.map((failure) => failure.seed));
const passingKnown = [...knownFailing].filter(
  (known) => known >= seed && known < seed + runs && !failingSeeds.has(known),
);
for (const known of passingKnown) {
  console.log(
    `known failing seed ${known} passes now: take it off --known-failing (and open-seeds)`,
  );
}
if (knownFailing.size > 0) {
  console.log(
    `  ${summary.failures.length - newFailures.length} known failing, ${newFailures.length} new`,
  );
}
console.log(`  ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(summaryLine(summary));
process.exit(newFailures.length > 0 || passingKnown.length > 0 ? 1 : 0);

/** `--digest`: what a run did, in one line to compare between two versions of the harness. */
function digestLine(result) {
  const counts = ['lost', 'diverged', 'resurrected', 'falseConflicts']
    .map((key) => `${key} ${result[key].length}`)
    .join(', ');
  const error = result.error === undefined ? '' : ', error';
  return `  seed ${result.seed} ops ${result.ops} devices ${result.devices}, ${counts}${error}, digest ${result.digest}`;
}

function report(result) {
  console.log(`seed ${result.seed} (${result.devices} devices, ${result.ops} ops) FAILED:`);
  if (result.error !== undefined) console.log(`  error: ${result.error || '(no message)'}`);
  for (const [name, items] of [
    ['lost', result.lost],
    ['diverged', result.diverged],
    ['resurrected', result.resurrected],
    ['false conflict', result.falseConflicts],
  ]) {
    for (const item of items.slice(0, 8)) console.log(`  ${name}: ${item}`);
    if (items.length > 8) console.log(`  … ${items.length - 8} more ${name}`);
  }
  const batch = blobsPerBatch === 1 ? '' : ` --blob-batch ${blobsPerBatch}`;
  console.log(`  replay: npm run sync-sim -- --runs 1 --seed ${result.seed}${batch} --trace`);
}

/** The runs split over `workers` processes; the summary as runSimulation makes it. */
async function runInWorkers(onRun) {
  const results = [];
  const share = Math.ceil(runs / workers);
  const script = fileURLToPath(import.meta.url);
  const jobs = [];
  for (let first = 0; first < runs; first += share) {
    const count = Math.min(share, runs - first);
    const args = ['--worker', '--runs', String(count), '--seed', String(seed + first)];
    args.push('--faults', String(faults), '--blob-batch', String(blobsPerBatch));
    if (values.digest) args.push('--digest');
    if (maxOps !== undefined) args.push('--ops', String(maxOps));
    jobs.push(
      new Promise((resolve, reject) => {
        const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        let done = false;
        child.on('message', (message) => {
          if (message.kind === 'run') {
            results.push(message.result);
            onRun(message.result);
          } else if (message.kind === 'done') done = true;
        });
        child.on('exit', (code) => {
          if (done) resolve();
          else
            reject(new Error(`a sync-sim worker (seeds from ${seed + first}) exited with ${code}`));
        });
      }),
    );
  }
  await Promise.all(jobs);
  results.sort((a, b) => a.seed - b.seed);
  const total = (key) => results.reduce((sum, result) => sum + result[key].length, 0);
  return {
    runs: results.length,
    ops: results.reduce((sum, result) => sum + result.ops, 0),
    lost: total('lost'),
    diverged: total('diverged'),
    resurrected: total('resurrected'),
    falseConflicts: total('falseConflicts'),
    failures: results.filter((result) => failed(result)),
  };
}
