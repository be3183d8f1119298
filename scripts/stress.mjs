#!/usr/bin/env node
// `npm run stress`: the companion under races and load, on loopback, bounded in time.
//
//   node scripts/stress.mjs [--only edits] [--seconds 20] [--clients 8]
//
// Parts:
//   edits   Racing edits. The real companion (dist/companion/cli.mjs, built first) runs on a
//           scratch vault on 127.0.0.1. An outside writer (this process, as Obsidian or a sync
//           client would) adds a numbered line to four notes every 1-10 ms, while --clients
//           HTTP clients edit the same notes through every write route: reminder note PATCH
//           and snooze, inline reminder PATCH (due) and snooze, a chat "add to Inbox/shopping
//           list.md: …" append, and memory writes (POST /api/v1/memories); the reminder is
//           marked done at the end. Run once per --writers kind: `append` (appendFile),
//           `rename` (read, write a temp file, rename it over the note: sync tools) and
//           `inplace` (read, then rewrite the note's own file: editors). Then every outside
//           line, and every chat append and memory answered as written, is looked for in the
//           note or a conflict copy beside it (`*.conflict-*.md`). Lost must be 0.
//   kill    SIGKILL in due bursts. --reminders reminder notes fall due at two whole minutes while
//           two devices are subscribed at a local HTTPS push service (test/fakes/push-service.ts,
//           its own throwaway certificate, trusted through NODE_EXTRA_CA_CERTS); the companion
//           is killed with SIGKILL --kills times, half in each due burst (while its sends are in
//           flight), and restarted each time.
//           Then every (reminder, device) must have been delivered, and a repeat is allowed
//           only as docs/delivery.md promises: after a kill, at most SEND_WINDOW (8) per kill.
//           Lost, repeats with no kill between their copies, and repeats over a kill's bound
//           fail the run; the other repeats are counted and printed.
//   load    --load-clients clients (one token, one address) on search and answer for
//           --load-seconds s, plus GET /health every 100 ms: p50/p99 and how many got 429.
//   pdf     --bombs PDF decompression bombs (each inflating to --bomb-mb MB) uploaded at once
//           through ingest: the companion's RSS before, at its peak, and 10 s after, and the
//           peak of its process tree (the PDF readers are child processes).
//   uploads --uploads PDFs of --upload-mb MB each uploaded at once through ingest: peak RSS of
//           the companion alone and of its process tree (PDF readers included), and how each
//           upload was answered.
// Everything runs on 127.0.0.1 in a temporary folder that is removed at the end; the server is
// stopped (SIGTERM, then SIGKILL after 5 s) whatever happens.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
// The delivery log's bound on messages in doubt at a kill, read from its one definition
// (this script runs the built CLI, which does not export it).
const SEND_WINDOW = Number(
  /export const SEND_WINDOW = (\d+);/.exec(
    readFileSync(join(repo, 'companion/reminders/scheduler.ts'), 'utf8'),
  )?.[1] ?? NaN,
);
if (!Number.isInteger(SEND_WINDOW)) throw new Error('SEND_WINDOW not found in scheduler.ts');
const PARTS = ['edits', 'kill', 'load', 'pdf', 'uploads'];
const WRITERS = ['append', 'rename', 'inplace'];
const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' },
    writers: { type: 'string', multiple: true },
    verbose: { type: 'boolean', default: false },
    reminders: { type: 'string', default: '1000' },
    kills: { type: 'string', default: '20' },
    'load-clients': { type: 'string', default: '50' },
    'load-seconds': { type: 'string', default: '30' },
    bombs: { type: 'string', default: '4' },
    'bomb-mb': { type: 'string', default: '300' },
    uploads: { type: 'string', default: '12' },
    'upload-mb': { type: 'string', default: '45' },
    // A companion built elsewhere (e.g. an older commit's dist/companion/cli.mjs, to compare):
    // used as is, nothing is built.
    cli: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run stress -- [--only edits] [--seconds 20] [--clients 8]');
  process.exit(0);
}
const seconds = Number(values.seconds);
const clients = Number(values.clients);
if (!(seconds > 0 && seconds <= 600)) throw new Error('--seconds must be in (0, 600]');
if (!(Number.isInteger(clients) && clients >= 1 && clients <= 64))
  throw new Error('--clients must be an integer in [1, 64]');
const reminderCount = Number(values.reminders);
const killCount = Number(values.kills);
if (!(Number.isInteger(reminderCount) && reminderCount >= 1 && reminderCount <= 5000))
  throw new Error('--reminders must be an integer in [1, 5000]');
if (!(Number.isInteger(killCount) && killCount >= 0 && killCount <= 100))
  throw new Error('--kills must be an integer in [0, 100]');
const loadClients = Number(values['load-clients']);
const loadSeconds = Number(values['load-seconds']);
if (!(Number.isInteger(loadClients) && loadClients >= 1 && loadClients <= 200))
  throw new Error('--load-clients must be an integer in [1, 200]');
if (!(loadSeconds > 0 && loadSeconds <= 300)) throw new Error('--load-seconds must be in (0, 300]');
const bombCount = Number(values.bombs);
const bombMegabytes = Number(values['bomb-mb']);
if (!(Number.isInteger(bombCount) && bombCount >= 1 && bombCount <= 16))
  throw new Error('--bombs must be an integer in [1, 16]');
if (!(Number.isInteger(bombMegabytes) && bombMegabytes >= 1 && bombMegabytes <= 1000))
  throw new Error('--bomb-mb must be an integer in [1, 1000]');
const uploadCount = Number(values.uploads);
const uploadMegabytes = Number(values['upload-mb']);
if (!(Number.isInteger(uploadCount) && uploadCount >= 1 && uploadCount <= 32))
  throw new Error('--uploads must be an integer in [1, 32]');
if (!(Number.isInteger(uploadMegabytes) && uploadMegabytes >= 1 && uploadMegabytes <= 49))
  throw new Error('--upload-mb must be an integer in [1, 49] (ingest takes up to 50 MB)');
const writers = values.writers ?? WRITERS;
for (const writer of writers) {
  if (!WRITERS.includes(writer)) throw new Error(`--writers must be one of ${WRITERS.join(', ')}`);
}
const parts = values.only ?? PARTS;
for (const part of parts) {
  if (!PARTS.includes(part)) throw new Error(`--only must be one of ${PARTS.join(', ')}`);
}

const companionCli = values.cli ? resolve(values.cli) : join(repo, 'dist/companion/cli.mjs');

const TOKEN = 'stress-token-0123456789abcdefghijklmnopqrstuvwxyz';
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function build() {
  const result = spawnSync(
    process.execPath,
    ['esbuild.config.mjs', 'production', '--companion-only'],
    {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (result.status !== 0) throw new Error('building the companion failed');
}

async function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/**
 * Starts dist/companion/cli.mjs on `vault`; resolves once /health answers (within `startMs`),
 * or at once with `wait: false` (call `ready()` later). A start that fails kills its process.
 */
async function startCompanion(
  vault,
  data,
  extraEnv = {},
  port = undefined,
  { wait = true, startMs = 60_000 } = {},
) {
  port ??= await freePort();
  const child = spawn(
    process.execPath,
    [companionCli, '--vault', vault, '--data', data, '--port', String(port), '--host', '127.0.0.1'],
    {
      cwd: repo,
      // Keyword search only (no model to load, nothing to embed): the races are the point.
      env: {
        ...process.env,
        CAIRN_TOKEN: TOKEN,
        CAIRN_EMBEDDINGS: 'ollama',
        CAIRN_OLLAMA_URL: 'http://127.0.0.1:9',
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const ready = async (withinMs = startMs) => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the companion exited: ${stderr}`);
      try {
        // Bounded: a connection the companion accepted but never answers must not hang the run.
        if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) })).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        // Never leave it running: its open pipe (and its pushes) would keep this run alive.
        child.kill('SIGKILL');
        throw new Error(`the companion did not start within ${withinMs / 1000} s: ${stderr}`);
      }
      await sleep(100);
    }
  };
  if (wait) await ready();
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
    await new Promise((done) => child.once('exit', done));
    clearTimeout(killed);
  };
  const kill = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
  };
  return { url, port, child, stop, kill, ready };
}

async function api(url, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** Files of a folder whose names are the note's conflict copies. */
async function withConflictCopies(vault, path) {
  const slash = path.lastIndexOf('/');
  const folder = path.slice(0, slash);
  const stem = path.slice(slash + 1, -'.md'.length);
  const names = await readdir(join(vault, folder));
  const copies = names.filter(
    (name) => name.startsWith(`${stem}.conflict-`) && name.endsWith('.md'),
  );
  const texts = [await readFile(join(vault, path), 'utf8')];
  for (const name of copies) texts.push(await readFile(join(vault, folder, name), 'utf8'));
  return { text: texts.join('\n'), copies: copies.length };
}

/**
 * Reads the note as a sync tool or editor does, trying again when its name is empty for a
 * moment: Cairn moves the note aside for the microseconds between two system calls when it
 * replaces it (docs/vault-writes.md), and a tool that read then would see no file.
 */
async function readNote(file) {
  for (let tries = 1; ; tries++) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if (error.code !== 'ENOENT' || tries >= 100) throw error;
      await sleep(1);
    }
  }
}

/** How an outside program adds `line` to a note, per writer kind. */
const OUTSIDE_WRITERS = {
  append: (file, line) => appendFile(file, `${line}\n`),
  // Sync tools: read, write the new text to a temp file, rename it over the note.
  rename: async (file, line) => {
    const text = await readNote(file);
    const temp = join(dirname(file), `.${basename(file)}.sync-${randomBytes(4).toString('hex')}`);
    await writeFile(temp, `${text}${text.endsWith('\n') ? '' : '\n'}${line}\n`);
    await rename(temp, file);
  },
  // Editors saving: read, then truncate and rewrite the note's own file.
  inplace: async (file, line) => {
    const text = await readNote(file);
    await writeFile(file, `${text}${text.endsWith('\n') ? '' : '\n'}${line}\n`);
  },
};

/** The routes that edit each note of the race. */
const ROUTES_OF = (reminderPath) =>
  new Map([
    [reminderPath, 'reminder PATCH/snooze/done'],
    ['Inbox/tasks.md', 'inline PATCH/snooze'],
    ['Inbox/shopping list.md', 'chat append (notes)'],
    ['Cairn/Memory.md', 'memory writes'],
  ]);

async function racingEdits(kind) {
  const root = await mkdtemp(join(tmpdir(), 'cairn-stress-'));
  const vault = join(root, 'vault');
  const data = join(root, 'data');
  let server;
  try {
    await mkdir(join(vault, 'Inbox'), { recursive: true });
    await writeFile(join(vault, 'Inbox/shopping list.md'), '# Shopping list\n\n- bread\n');
    await writeFile(
      join(vault, 'Inbox/tasks.md'),
      '# Tasks\n\n- [ ] Water the plants @remind(2030-01-10 09:00) ^r-w4t3\n\nSome prose.\n',
    );
    server = await startCompanion(vault, data);
    const { url } = server;
    const firstFact = await api(url, 'POST', '/api/v1/memories', { text: 'The stress run began' });
    if (firstFact.status !== 201)
      throw new Error(`creating Cairn/Memory.md: ${firstFact.status} ${firstFact.text}`);

    const created = await api(url, 'POST', '/api/v1/reminders', {
      title: 'Pay rent',
      due: '2030-01-01T09:00',
      timezone: 'Europe/Berlin',
    });
    if (created.status !== 201)
      throw new Error(`creating the reminder: ${created.status} ${created.text}`);
    const reminder = JSON.parse(created.text);
    let inline;
    for (let tries = 0; tries < 50 && inline === undefined; tries++) {
      const list = JSON.parse((await api(url, 'GET', '/api/v1/reminders?limit=100')).text);
      inline = list.reminders?.find((entry) => entry.path === 'Inbox/tasks.md');
      if (inline === undefined) await sleep(100);
    }
    if (inline === undefined) throw new Error('the inline reminder was not found');

    const routesOf = ROUTES_OF(reminder.path);
    const targets = [...routesOf.keys()];
    const appended = new Map(targets.map((path) => [path, []]));
    const deadline = Date.now() + seconds * 1000;
    let outsideWrites = 0;
    const writeOutside = OUTSIDE_WRITERS[kind];
    const writer = async (path) => {
      for (let n = 1; Date.now() < deadline; n++) {
        const line = `outside ${n} ${path}`;
        await writeOutside(join(vault, path), line);
        appended.get(path).push(line);
        outsideWrites++;
        await sleep(1 + Math.floor(Math.random() * 10));
      }
    };

    const outcomes = new Map();
    const examples = new Map();
    const count = (route, status, text) => {
      const key = `${route} ${status}`;
      if (text !== undefined && !examples.has(key)) examples.set(key, text.slice(0, 300));
      const entry = outcomes.get(route) ?? new Map();
      entry.set(status, (entry.get(status) ?? 0) + 1);
      outcomes.set(route, entry);
    };
    const chatItems = [];
    const facts = [];
    let sequence = 0;
    const operations = [
      async (i) =>
        count(
          'reminder PATCH',
          (await api(url, 'PATCH', `/api/v1/reminders/${reminder.id}`, { title: `Pay rent ${i}` }))
            .status,
        ),
      async () =>
        count(
          'reminder snooze',
          (await api(url, 'POST', `/api/v1/reminders/${reminder.id}/snooze`, { minutes: 15 }))
            .status,
        ),
      async (i) => {
        const minute = String(i % 60).padStart(2, '0');
        const response = await api(url, 'PATCH', `/api/v1/reminders/${inline.id}`, {
          due: `2030-01-10T09:${minute}`,
        });
        count('inline PATCH', response.status, response.text);
        if (response.status === 200) inline = JSON.parse(response.text);
      },
      async () =>
        count(
          'inline snooze',
          (await api(url, 'POST', `/api/v1/reminders/${inline.id}/snooze`, { minutes: 30 })).status,
        ),
      async (i) => {
        const fact = `Stress fact ${i} concerns the zebra number ${i}`;
        const response = await api(url, 'POST', '/api/v1/memories', { text: fact });
        count('memory write', response.status, response.text);
        if (response.status === 201 || response.status === 200) facts.push(fact);
      },
    ];
    // Chat appends from one client in turn: the chat route allows 2 open streams per address
    // and 30 answers a minute, so more would only measure the rate limit.
    const chatClient = async () => {
      while (Date.now() < deadline) {
        const i = ++sequence;
        const item = `item-${i}`;
        const response = await api(url, 'POST', '/api/v1/chat', {
          message: `add to Inbox/shopping list.md: ${item}`,
        });
        const ok = response.status === 200 && /"success":true/.test(response.text);
        count(
          'chat append',
          ok ? 'written' : response.status === 200 ? 'refused in stream' : response.status,
          response.text,
        );
        if (ok) chatItems.push(item);
        await sleep(response.status === 429 ? 1000 : 2000);
      }
    };
    const client = async () => {
      while (Date.now() < deadline) {
        const i = ++sequence;
        await operations[i % operations.length](i);
      }
    };
    const started = Date.now();
    await Promise.all([
      ...targets.map(writer),
      chatClient(),
      ...Array.from({ length: clients }, client),
    ]);
    const elapsed = (Date.now() - started) / 1000;
    count(
      'reminder done',
      (await api(url, 'POST', `/api/v1/reminders/${reminder.id}/done`, {})).status,
    );

    // A write keeps watching the file it replaced for a moment after answering (late writes
    // still in flight are merged then): let those watches finish before counting.
    await sleep(3000);
    let lost = 0;
    let chatLost = 0;
    let factsLost = 0;
    let copies = 0;
    const rows = [];
    for (const path of targets) {
      const found = await withConflictCopies(vault, path);
      copies += found.copies;
      const present = new Set(found.text.split(/\r?\n/));
      const missing = appended.get(path).filter((line) => !present.has(line));
      if (values.verbose && path === reminder.path) {
        const head = (await readFile(join(vault, path), 'utf8')).split('\n').slice(0, 14);
        console.log(`${path} begins:\n${head.join('\n')}`);
      }
      lost += missing.length;
      if (values.verbose && missing.length > 0)
        console.log(`lost from ${path}: ${missing.join(' | ')}`);
      let acknowledged = '';
      if (path === 'Inbox/shopping list.md') {
        chatLost += chatItems.filter((item) => !found.text.includes(item)).length;
        acknowledged = `${chatLost} of ${chatItems.length} chat appends`;
      }
      if (path === 'Cairn/Memory.md') {
        factsLost += facts.filter((fact) => !found.text.includes(fact)).length;
        acknowledged = `${factsLost} of ${facts.length} memories`;
      }
      rows.push({
        kind,
        route: routesOf.get(path),
        outside: appended.get(path).length,
        lost: missing.length,
        acknowledged,
        copies: found.copies,
      });
    }
    let temps = 0;
    for (const folder of ['Inbox', 'Cairn', 'Cairn/Reminders']) {
      temps += (await readdir(join(vault, folder))).filter((name) => name.endsWith('.tmp')).length;
    }

    console.log(
      `\n## Racing edits, ${kind} writer (${elapsed.toFixed(1)} s, ${clients} clients, outside writer 1-10 ms)\n`,
    );
    console.log('| route | outcomes |');
    console.log('|---|---|');
    for (const [route, statuses] of outcomes) {
      const text = [...statuses].map(([status, n]) => `${status}: ${n}`).join(', ');
      console.log(`| ${route} | ${text} |`);
    }
    console.log('\n| measure | value |');
    console.log('|---|---|');
    console.log(`| outside lines appended | ${outsideWrites} |`);
    console.log(`| outside lines lost | ${lost} |`);
    console.log(`| chat appends answered written | ${chatItems.length} |`);
    console.log(`| chat appends lost | ${chatLost} |`);
    console.log(`| memories answered written | ${facts.length} |`);
    console.log(`| memories lost | ${factsLost} |`);
    console.log(`| conflict copies made | ${copies} |`);
    console.log(`| temp files left | ${temps} |`);
    if (values.verbose) {
      console.log('\nFirst answer of each kind:');
      for (const [key, text] of examples) console.log(`- ${key}: ${text.replace(/\s+/g, ' ')}`);
    }
    return { failures: lost + chatLost + factsLost, rows };
  } finally {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** test/fakes/push-service.ts bundled into a scratch folder inside the repository. */
async function loadPushService() {
  const esbuild = (await import('esbuild')).default;
  const outdir = await mkdtemp(join(repo, '.stress-build-'));
  await esbuild.build({
    entryPoints: [join(repo, 'test/fakes/push-service.ts')],
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  try {
    return await import(pathToFileURL(join(outdir, 'push-service.mjs')).href);
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

function reminderNote(i, due) {
  const id = `stress-${String(i).padStart(5, '0')}`;
  return {
    id,
    path: `Cairn/Reminders/${id}.md`,
    text: `---\nid: ${id}\ntype: reminder\ntitle: Stress ${i}\ndue: ${due}\ntimezone: UTC\nstatus: active\ncreated: ${due}\n---\n`,
  };
}

async function killAroundDueReminders() {
  const { FakePushService } = await loadPushService();
  const service = await FakePushService.start();
  const root = await mkdtemp(join(tmpdir(), 'cairn-stress-kill-'));
  const vault = join(root, 'vault');
  const data = join(root, 'data');
  const env = { NODE_EXTRA_CA_CERTS: service.certFile, CAIRN_PUSH_HOSTS: '127.0.0.1' };
  let server;
  try {
    await mkdir(join(vault, 'Cairn/Reminders'), { recursive: true });
    server = await startCompanion(vault, data, env);
    const port = server.port;
    const devices = [];
    for (const name of ['phone', 'tablet']) {
      const browser = service.createSubscription();
      const added = await api(server.url, 'POST', '/api/v1/push/subscriptions', {
        ...browser,
        name,
      });
      if (added.status !== 201) throw new Error(`subscribing: ${added.status} ${added.text}`);
      devices.push(browser.endpoint.split('/').pop());
    }
    // Reminders have minute resolution: half fall due at the first whole minute at least 20 s
    // away (time for the watcher to read them all), half a minute later.
    const start = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    const notes = [];
    for (let i = 0; i < reminderCount; i++) {
      const due = new Date(start + (i % 2) * 60_000);
      notes.push(reminderNote(i, due.toISOString().replace('.000Z', 'Z')));
    }
    for (const note of notes) await writeFile(join(vault, note.path), note.text);
    const lastDue = start + 60_000;
    const expected = reminderCount * devices.length;
    const delivered = () =>
      service.messages.filter((m) => m.answered === 201 && m.payload !== null).length;
    const progress = (text) => {
      if (values.verbose) console.error(`[kill ${new Date().toISOString().slice(11, 23)}] ${text}`);
    };
    // The kills land in the due bursts, where sends are in flight: half in each burst, the
    // first 0-1 s after the due instant, each next one 0-0.3 s after the restarted process
    // sent its first message (a start resends what the kill left claimed: a burst again). A
    // kill counts as in a burst when deliveries of that burst were outstanding as it landed.
    let kills = 0;
    let killsInBurst = 0;
    // Kills that landed after the process had sent a message of the burst, before its end.
    let killsWhileSending = 0;
    const killTimes = [];
    // For each start: how long until /health answered, and whether that was before its first
    // push message (a start that listens first answers while it still catches up).
    const restarts = [];
    const probeHealth = (companion) => {
      const spawned = Date.now();
      const seen = service.messages.length;
      const probe = { healthMs: undefined, beforeFirstPush: undefined };
      probe.done = (async () => {
        while (companion.child.exitCode === null && Date.now() - spawned < 120_000) {
          try {
            const answer = await fetch(`${companion.url}/health`, {
              signal: AbortSignal.timeout(1000),
            });
            if (answer.ok) {
              probe.healthMs = Date.now() - spawned;
              const first = service.messages[seen];
              probe.beforeFirstPush = first === undefined || first.at >= spawned + probe.healthMs;
              return;
            }
          } catch {
            // not listening yet
          }
          await sleep(25);
        }
      })();
      return probe;
    };
    for (const [burst, due] of [start, lastDue].entries()) {
      const inThisBurst = burst === 0 ? Math.ceil(killCount / 2) : Math.floor(killCount / 2);
      const burstTarget = (expected / 2) * (burst + 1);
      let processFrom = service.messages.length;
      await sleep(Math.max(0, due + Math.random() * 1000 - Date.now()));
      for (let k = 0; k < inThisBurst; k++) {
        const outstanding = burstTarget - delivered();
        const sending = service.messages.length > processFrom && outstanding > 0;
        await server.kill();
        killTimes.push(Date.now());
        kills++;
        if (outstanding > 0) killsInBurst++;
        if (sending) killsWhileSending++;
        progress(`kill ${kills}: ${outstanding} of this burst outstanding, sending: ${sending}`);
        // Not waited for: the next kill is meant to land in the burst the start resends.
        server = await startCompanion(vault, data, env, port, { wait: false });
        restarts.push(probeHealth(server));
        progress(`restarted; ${delivered()} delivered`);
        // The next kill lands once the new process is sending again (or nothing is left); on
        // this shared machine a start can take a minute before it sends.
        processFrom = service.messages.length;
        const waitUntil = Date.now() + 120_000;
        while (
          service.messages.length === processFrom &&
          delivered() < burstTarget &&
          Date.now() < waitUntil
        ) {
          await sleep(20);
        }
        await sleep(Math.random() * 300);
      }
    }
    // The old start sent everything due before it listened: minutes on a loaded machine.
    await server.ready(900_000);
    progress(`last start listening; ${delivered()} delivered`);
    await Promise.all(restarts.map((probe) => probe.done));
    const answered = restarts.filter((probe) => probe.healthMs !== undefined);
    const healthMs = answered.map((probe) => probe.healthMs).sort((a, b) => a - b);
    await sleep(Math.max(0, lastDue + 10_000 - Date.now()));
    // Until every (reminder, device) has arrived at least once: duplicates are no progress.
    const arrived = () =>
      new Set(
        service.messages
          .filter((m) => m.answered === 201 && m.payload !== null)
          .map((m) => `${JSON.parse(m.payload).reminder_id}|${m.subscription}`),
      ).size;
    const deadline = Date.now() + 300_000;
    while (arrived() < expected && Date.now() < deadline) await sleep(500);

    const counts = new Map();
    const previousCopy = new Map();
    // Each repeat is put down to the kill that ended the process which sent the copy before it
    // (the kill that left that copy in doubt): a kill's count is what it left unmarked, even
    // when a later process is the one that sends the repeats.
    const duplicatesAfterKill = new Array(killTimes.length + 1).fill(0);
    for (const message of service.messages) {
      if (message.answered !== 201 || message.payload === null) continue;
      const { reminder_id: id } = JSON.parse(message.payload);
      const key = `${id}|${message.subscription}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const before = previousCopy.get(key);
      previousCopy.set(key, message.at);
      if (before !== undefined) {
        const kill = killTimes.findIndex((at) => at >= before);
        const noKillBetween = kill === -1 || killTimes[kill] > message.at;
        duplicatesAfterKill[noKillBetween ? 0 : kill + 1]++;
      }
    }
    let lost = 0;
    let duplicated = 0;
    for (const note of notes) {
      for (const device of devices) {
        const n = counts.get(`${note.id}|${device}`) ?? 0;
        if (n === 0) lost++;
        if (n > 1) duplicated += n - 1;
      }
    }
    const missed = await api(server.url, 'GET', '/api/v1/reminders/missed');
    const missedCount =
      missed.status === 200 ? (JSON.parse(missed.text).missed?.length ?? '?') : '?';
    console.log(
      `\n## SIGKILL around due reminders (${reminderCount} reminders, ${devices.length} devices, ${kills} kills)\n`,
    );
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| kills with deliveries of the burst outstanding | ${killsInBurst} |`);
    console.log(`| kills while the process was sending the burst | ${killsWhileSending} |`);
    console.log(`| deliveries expected | ${expected} |`);
    console.log(`| delivered (201) | ${delivered()} |`);
    console.log(`| lost (reminder, device) | ${lost} |`);
    console.log(`| duplicated deliveries | ${duplicated} |`);
    console.log(`| most repeats left by one kill | ${Math.max(...duplicatesAfterKill.slice(1))} |`);
    console.log(`| repeats with no kill between the copies | ${duplicatesAfterKill[0]} |`);
    if (values.verbose) console.log('repeats per kill:', duplicatesAfterKill.slice(1).join(' '));
    console.log(`| listed missed | ${missedCount} |`);
    console.log(
      `| restarts whose /health answered before the next kill | ${answered.length} of ${restarts.length} |`,
    );
    console.log(
      `| of those, answered before the start's first push | ${answered.filter((probe) => probe.beforeFirstPush).length} |`,
    );
    console.log(
      `| time from spawn to /health, p50 / max | ${healthMs.length ? `${percentile(healthMs, 50)} / ${healthMs.at(-1)} ms` : '-'} |`,
    );
    if (values.verbose) {
      const statuses = new Map();
      for (const m of service.messages)
        statuses.set(m.answered, (statuses.get(m.answered) ?? 0) + 1);
      console.log('push service answers:', Object.fromEntries(statuses));
      const bad = service.messages.find((m) => m.answered !== 201);
      if (bad) console.log('first refused:', bad.vapid, bad.decryptError);
      console.log('missed:', missed.text.slice(0, 400));
    }
    // docs/delivery.md: at least once per device; twice only after a kill, at most
    // SEND_WINDOW per kill (a push service keeps no record a restarted sender could ask).
    const overBound = duplicatesAfterKill
      .slice(1)
      .reduce((sum, n) => sum + Math.max(0, n - SEND_WINDOW), 0);
    console.log(`| repeats over the bound of ${SEND_WINDOW} per kill | ${overBound} |`);
    return lost + duplicatesAfterKill[0] + overBound;
  } catch (error) {
    console.error(`kill run failed: ${error.stack ?? error}`);
    throw error;
  } finally {
    await server?.stop();
    await service.close();
    await rm(root, { recursive: true, force: true });
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function loadOnSearch() {
  const root = await mkdtemp(join(tmpdir(), 'cairn-stress-load-'));
  const vault = join(root, 'vault');
  let server;
  try {
    await cp(join(repo, 'companion/sample-vault'), vault, { recursive: true });
    server = await startCompanion(vault, join(root, 'data'));
    const { url } = server;
    const questions = ['visa rules', 'call the bank', 'passport', 'meeting notes', 'plants'];
    const latencies = { search: [], answer: [], health: [] };
    const statuses = { search: new Map(), answer: new Map() };
    const deadline = Date.now() + loadSeconds * 1000;
    const timed = async (kind, run) => {
      const started = performance.now();
      const status = await run();
      latencies[kind].push(performance.now() - started);
      if (statuses[kind]) statuses[kind].set(status, (statuses[kind].get(status) ?? 0) + 1);
    };
    const client = async (n) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const q = questions[(n + i) % questions.length];
        if ((n + i) % 2 === 0) {
          await timed(
            'search',
            async () => (await api(url, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`)).status,
          );
        } else {
          await timed(
            'answer',
            async () => (await api(url, 'POST', '/api/v1/answer', { question: q })).status,
          );
        }
      }
    };
    const health = async () => {
      while (Date.now() < deadline) {
        await timed('health', async () => (await fetch(`${url}/health`)).status);
        await sleep(100);
      }
    };
    await Promise.all([...Array.from({ length: loadClients }, (_, n) => client(n)), health()]);
    console.log(
      `\n## ${loadClients} clients on search and answer for ${loadSeconds} s (one token, one address)\n`,
    );
    console.log('| route | requests | 200 | 429 | other | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|---|');
    for (const kind of ['search', 'answer', 'health']) {
      const sorted = [...latencies[kind]].sort((a, b) => a - b);
      const byStatus = statuses[kind] ?? new Map([[200, sorted.length]]);
      const ok = byStatus.get(200) ?? 0;
      const limited = byStatus.get(429) ?? 0;
      const other = sorted.length - ok - limited;
      console.log(
        `| ${kind} | ${sorted.length} | ${ok} | ${limited} | ${other} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} |`,
      );
    }
    return 0;
  } finally {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * A small PDF whose one content stream inflates to `megabytes` MB of text-showing operators:
 * a decompression bomb for the text extractor. The xref table is left out (readers rebuild it).
 */
function pdfBomb(megabytes) {
  const line = Buffer.from('BT (bomb bomb bomb bomb bomb bomb bomb bomb bomb bomb bomb) Tj ET\n');
  const content = Buffer.alloc(megabytes * 1024 * 1024);
  for (let offset = 0; offset < content.length; offset += line.length) line.copy(content, offset);
  const stream = deflateSync(content, { level: 9 });
  return Buffer.concat([
    Buffer.from(
      '%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n' +
        '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n' +
        '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>> endobj\n' +
        `4 0 obj <</Length ${stream.length}/Filter/FlateDecode>> stream\n`,
    ),
    stream,
    Buffer.from('\nendstream endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n'),
  ]);
}

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

async function pdfBombs() {
  const root = await mkdtemp(join(tmpdir(), 'cairn-stress-pdf-'));
  const vault = join(root, 'vault');
  let server;
  try {
    await mkdir(vault, { recursive: true });
    server = await startCompanion(vault, join(root, 'data'));
    const pid = server.child.pid;
    await sleep(3000);
    const before = await rssMb(pid);
    const bomb = pdfBomb(bombMegabytes);
    let peak = before;
    // The PDF readers are child processes: the whole tree is what the machine pays.
    let treePeak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssMb(pid));
        treePeak = Math.max(treePeak, await treeRssMb(pid));
        await sleep(100);
      }
    })();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: bombCount }, async (_, i) => {
        const form = new FormData();
        form.append('file', new Blob([bomb], { type: 'application/pdf' }), `bomb-${i}.pdf`);
        const response = await fetch(`${server.url}/api/v1/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body: form,
        });
        const body = await response.json();
        return { status: response.status, seconds: (Date.now() - started) / 1000, body };
      }),
    );
    await sleep(10_000);
    sampling = false;
    await sampler;
    const after = await rssMb(pid);
    console.log(
      `\n## ${bombCount} concurrent PDF bombs (${Math.round(bomb.length / 1024)} KB, inflating to ${bombMegabytes} MB each) via ingest\n`,
    );
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| companion RSS before | ${before} MB |`);
    console.log(`| companion RSS peak | ${peak} MB |`);
    console.log(`| process tree RSS peak (companion + PDF readers) | ${treePeak} MB |`);
    console.log(`| companion RSS 10 s after | ${after} MB |`);
    for (const [i, answer] of answers.entries()) {
      const outcome =
        answer.body.index_error ?? (answer.body.indexed ? 'indexed' : answer.body.error?.message);
      console.log(
        `| upload ${i + 1} | ${answer.status} after ${answer.seconds.toFixed(1)} s: ${outcome} |`,
      );
    }
    return 0;
  } finally {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** Resident memory of `pid` and every process below it, in MB (Linux /proc). */
async function treeRssMb(pid) {
  const parents = new Map();
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Field 4 (ppid) follows the command name, which is in parentheses and may hold spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const member of tree) total += (await rssMb(member)) || 0;
  return total;
}

/**
 * A valid PDF of about `megabytes` MB: one page of searchable text, plus an unreferenced
 * stream of random bytes (an embedded image's worth) that makes up the size.
 */
function largePdf(n, megabytes) {
  const text = `BT /F1 12 Tf 72 720 Td (Upload ${n} carries the word zeppelin${n}) Tj ET`;
  const filler = randomBytes(megabytes * 1024 * 1024);
  const objects = [
    Buffer.from('<</Type/Catalog/Pages 2 0 R>>'),
    Buffer.from('<</Type/Pages/Kids[3 0 R]/Count 1>>'),
    Buffer.from(
      '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R' +
        '/Resources<</Font<</F1 6 0 R>>>>>>',
    ),
    Buffer.from(`<</Length ${text.length}>> stream\n${text}\nendstream`),
    Buffer.concat([
      Buffer.from(`<</Length ${filler.length}>> stream\n`),
      filler,
      Buffer.from('\nendstream'),
    ]),
    Buffer.from('<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>'),
  ];
  const pieces = [Buffer.from('%PDF-1.4\n')];
  let offset = pieces[0].length;
  const offsets = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(offset);
    const piece = Buffer.concat([Buffer.from(`${i + 1} 0 obj `), body, Buffer.from(' endobj\n')]);
    pieces.push(piece);
    offset += piece.length;
  }
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`];
  for (const at of offsets) xref.push(`${String(at).padStart(10, '0')} 00000 n \n`);
  xref.push(`trailer <</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${offset}\n%%EOF\n`);
  pieces.push(Buffer.from(xref.join('')));
  return Buffer.concat(pieces);
}

async function parallelUploads() {
  const root = await mkdtemp(join(tmpdir(), 'cairn-stress-uploads-'));
  const vault = join(root, 'vault');
  let server;
  try {
    await mkdir(vault, { recursive: true });
    server = await startCompanion(vault, join(root, 'data'));
    const pid = server.child.pid;
    await sleep(3000);
    const before = { own: await rssMb(pid), tree: await treeRssMb(pid) };
    const files = Array.from({ length: uploadCount }, (_, i) => largePdf(i, uploadMegabytes));
    const peak = { ...before };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak.own = Math.max(peak.own, await rssMb(pid));
        peak.tree = Math.max(peak.tree, await treeRssMb(pid));
        await sleep(100);
      }
    })();
    const started = Date.now();
    const answers = await Promise.all(
      files.map(async (file, i) => {
        const form = new FormData();
        form.append('file', new Blob([file], { type: 'application/pdf' }), `upload-${i}.pdf`);
        const response = await fetch(`${server.url}/api/v1/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body: form,
        });
        const body = await response.json();
        return { status: response.status, seconds: (Date.now() - started) / 1000, body };
      }),
    );
    await sleep(5_000);
    sampling = false;
    await sampler;
    const after = { own: await rssMb(pid), tree: await treeRssMb(pid) };
    const saved = (await readdir(vault, { recursive: true })).filter((name) =>
      name.endsWith('.pdf'),
    ).length;
    const indexed = answers.filter((answer) => answer.body.indexed === true).length;
    console.log(
      `\n## ${uploadCount} concurrent uploads of ${(files[0].length / 1024 / 1024).toFixed(1)} MB PDFs via ingest\n`,
    );
    console.log('| measure | companion | process tree |');
    console.log('|---|---|---|');
    console.log(`| RSS before | ${before.own} MB | ${before.tree} MB |`);
    console.log(`| RSS peak | ${peak.own} MB | ${peak.tree} MB |`);
    console.log(`| RSS 5 s after | ${after.own} MB | ${after.tree} MB |`);
    console.log(`\n| outcome | value |`);
    console.log('|---|---|');
    const statuses = new Map();
    for (const answer of answers)
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    console.log(`| answers | ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')} |`);
    console.log(`| files saved | ${saved} |`);
    console.log(`| indexed | ${indexed} |`);
    console.log(`| slowest answer | ${Math.max(...answers.map((a) => a.seconds)).toFixed(1)} s |`);
    if (values.verbose) {
      for (const answer of answers) console.log(JSON.stringify(answer.body).slice(0, 300));
    }
    return answers.filter((answer) => answer.status !== 201).length;
  } finally {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

if (!values.cli) build();
let failures = 0;
if (parts.includes('edits')) {
  const rows = [];
  for (const kind of writers) {
    const result = await racingEdits(kind);
    failures += result.failures;
    rows.push(...result.rows);
  }
  console.log('\n## Lines lost per outside writer kind and route\n');
  console.log(
    '| writer | route | outside lines | outside lines lost | answered-written lost | conflict copies |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.kind} | ${row.route} | ${row.outside} | ${row.lost} | ${row.acknowledged || '-'} | ${row.copies} |`,
    );
  }
}
if (parts.includes('kill')) failures += await killAroundDueReminders();
if (parts.includes('load')) failures += await loadOnSearch();
if (parts.includes('pdf')) failures += await pdfBombs();
if (parts.includes('uploads')) failures += await parallelUploads();

process.exitCode = failures === 0 ? 0 : 1;
