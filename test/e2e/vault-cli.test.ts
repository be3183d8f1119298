import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TSchema } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCompanionOnce } from '../helpers/companion-build';
import { MemoryCreated, MemoryItem } from '../../shared/protocol/memories';
import { NoteCreated } from '../../shared/protocol/notes';
import { ReminderCreated, ReminderListResponse } from '../../shared/protocol/reminders';
import { AnswerResponse, SearchResponse } from '../../shared/protocol/search';
import { StatusResponse } from '../../shared/protocol/status';
import { checkSchema } from '../../shared/protocol/validate';
import { repoRoot } from '../helpers/corpora';

/*
 * The built CLI's vault commands (search, ask, remind, note, reminders, remember, status,
 * completion): piped and on a pseudo-terminal (util-linux `script`), without a companion (the
 * index is read in the CLI's own process, no scheduler) and with one running on the same
 * vault (the CLI talks to it over HTTP with the stored token). `--json` answers are checked
 * against the API's schemas.
 */

const CLI = join(repoRoot, 'dist/companion/cli.mjs');
const SLOW = 240_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let work: string;
let vault: string;
let dataDir: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('CAIRN_') && name !== 'NO_COLOR',
    ),
  );
  // Keyword search: these tests are about the command line, not the model (and the machine is shared).
  return { ...clean, CAIRN_VAULT: vault, CAIRN_DATA: dataDir, CAIRN_EMBEDDINGS: 'none', ...extra };
}

/** The CLI with stdin and stdout pipes, as a script runs it. */
function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Run {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: env(options.env),
    encoding: 'utf8',
    input: options.input ?? '',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * The CLI on a pseudo-terminal (stdin and stdout are a TTY): `script -qefc` runs it, passes
 * `input` to the terminal, returns what the terminal showed and the CLI's exit code.
 */
function onTerminal(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Run {
  const command = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  const run = spawnSync('script', ['-qefc', command, '/dev/null'], {
    env: env(options.env),
    encoding: 'utf8',
    input: options.input ?? '',
  });
  return { status: run.status, stdout: run.stdout.replace(/\r\n/g, '\n'), stderr: run.stderr };
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function valid<T extends TSchema>(schema: T, stdout: string): unknown {
  const value: unknown = JSON.parse(stdout);
  const check = checkSchema(schema, value);
  expect(check.ok ? 'ok' : `${check.violation.field}: ${check.violation.message}`).toBe('ok');
  return value;
}

function auditClients(): Array<{ client: string; action: string; target: string | null }> {
  const db = new Database(join(dataDir, 'cairn.db'), { readonly: true });
  try {
    return db.prepare('SELECT client, action, target FROM audit_log ORDER BY id').all() as Array<{
      client: string;
      action: string;
      target: string | null;
    }>;
  } finally {
    db.close();
  }
}

const ESC = '\u001b[';

beforeAll(async () => {
  // The one build of this run: building again here rewrote dist/companion/ under the other
  // end-to-end files' running companions.
  await buildCompanionOnce();
  work = mkdtempSync(join(tmpdir(), 'cairn-e2e-vault-cli-'));
  vault = join(work, 'vault');
  dataDir = join(work, 'data');
  cpSync(join(repoRoot, 'companion/sample-vault'), vault, { recursive: true });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('without a running companion (the index in the CLI process)', () => {
  it(
    'searches and answers, piped, with --json in the API shapes and exit codes',
    () => {
      const found = cli(['search', 'visa fee', '--json']);
      expect(found.status, found.stderr).toBe(0);
      const results = valid(SearchResponse, found.stdout) as SearchResponse;
      expect(results.results[0]?.citation.path).toBe('Travel/Visa rules.md');
      expect(results.mode).toBe('keyword');
      // The index was built here, with no server: nothing announced, nothing scheduled.
      expect(existsSync(join(dataDir, 'server.json'))).toBe(false);

      const plain = cli(['search', 'visa fee', '--limit', '2']);
      expect(plain.status).toBe(0);
      expect(plain.stdout).toMatch(
        /^Travel\/Visa rules\.md:\d+ {2}Visa rules summary › Key points\n/,
      );
      expect(
        plain.stdout.split('\n').filter((line) => /^\S.*?\.md:\d+ {2}/.test(line)),
      ).toHaveLength(2);
      expect(plain.stdout).not.toContain(ESC); // piped: no colour

      const nothing = cli(['search', 'xylophone quasar', '--json']);
      expect(nothing.status).toBe(1);
      expect((JSON.parse(nothing.stdout) as SearchResponse).results).toEqual([]);

      const answer = cli(['ask', 'What is the visa fee?', '--json']);
      expect(answer.status, answer.stderr).toBe(0);
      const answered = valid(AnswerResponse, answer.stdout) as AnswerResponse;
      expect(answered.answer).toContain('€90');
      expect(answered.citations[0]).toMatchObject({ path: 'Travel/Visa rules.md', type: 'note' });
      const line = (answered.citations[0] as { lines: [number, number] }).lines[0];
      const readable = cli(['ask', 'What is the visa fee?']);
      expect(readable.stdout).toContain(`[1] Travel/Visa rules.md:${line} `);
      expect(readable.stdout).toContain('€90');

      const summarize = cli(['ask', 'What is the visa fee?', '--summarize']);
      expect(summarize.status).toBe(0);
      expect(summarize.stderr).toContain('quotes only: no LLM phrased this');
    },
    SLOW,
  );

  it('names the flag on bad input and exits 2, before touching anything', () => {
    const badLimit = cli(['search', 'visa', '--limit', '0']);
    expect(badLimit.status).toBe(2);
    expect(badLimit.stderr).toMatch(/^cairn-companion search: --limit: /);
    const badType = cli(['search', 'visa', '--type', 'image']);
    expect(badType.status).toBe(2);
    expect(badType.stderr).toContain('--type: "image" is not one of note, pdf, reminder');
    const unknown = cli(['ask', 'x', '--bogus']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    const noQuery = cli(['search']);
    expect(noQuery.status).toBe(2);
    expect(noQuery.stderr).toContain('search needs "query"');
    const noTime = cli(['remind', 'buy milk']);
    expect(noTime.status).toBe(2);
    expect(noTime.stderr).toContain('When should I remind you to buy milk?');
    const noVault = cli(['status'], { env: { CAIRN_VAULT: '' } });
    expect(noVault.status).toBe(2);
    expect(noVault.stderr).toContain('--vault');
  });

  it(
    'writes notes, reminders and memories through the API path, audited as cli, no scheduler',
    () => {
      const note = cli(['note', 'Shell note', '--body', '-', '--tag', 'cli', '--json'], {
        input: 'Typed into a pipe.\n',
      });
      expect(note.status, note.stderr).toBe(0);
      const created = valid(NoteCreated, note.stdout) as NoteCreated;
      expect(readFileSync(join(vault, created.path), 'utf8')).toContain('Typed into a pipe.');
      // Indexed at once: the next search finds it.
      expect(cli(['search', 'typed pipe']).stdout).toContain(created.path);

      const remind = cli(['remind', 'call the bank tomorrow at 5pm', '--json']);
      expect(remind.status, remind.stderr).toBe(0);
      const reminder = valid(ReminderCreated, remind.stdout) as ReminderCreated;
      expect(reminder).toMatchObject({ title: 'Call the bank', timezone: 'Europe/Berlin' });
      expect(reminder.due).toMatch(/T17:00:00\+01:00$/);
      expect(remind.stderr).toContain('Call the bank'); // what it understood, off stdout
      expect(existsSync(join(vault, reminder.path))).toBe(true);

      // A guessed time is not written from a script without --yes.
      const before = readdirSync(join(vault, 'Cairn/Reminders')).length;
      const guessed = cli(['remind', 'water the ferns tomorrow at 6']);
      expect(guessed.status).toBe(1);
      expect(guessed.stderr).toContain('"tomorrow at 6" has no am/pm: read as 06:00');
      expect(readdirSync(join(vault, 'Cairn/Reminders'))).toHaveLength(before);
      const forced = cli(['remind', 'water the ferns tomorrow at 6', '--yes']);
      expect(forced.status, forced.stderr).toBe(0);
      expect(readdirSync(join(vault, 'Cairn/Reminders'))).toHaveLength(before + 1);

      const listed = cli(['reminders', '--json']);
      expect(listed.status).toBe(0);
      const list = valid(ReminderListResponse, listed.stdout) as ReminderListResponse;
      expect(list.reminders.map((entry) => entry.title)).toContain('Call the bank');
      const overdue = cli(['reminders', '--due', 'overdue']);
      expect(overdue.stdout).toContain('Journal/2026-11-22.md:5'); // the sample's past one-offs

      const fact = cli(['remember', 'My bank is the Sparkasse', '--json']);
      expect(fact.status, fact.stderr).toBe(0);
      // MemoryCreated is MemoryItem (closed) ∩ the flags, which Value.Check cannot pass as a
      // whole: each part is checked against its own schema.
      const memory = JSON.parse(fact.stdout) as MemoryCreated;
      const { deduplicated, replaced, ...item } = memory;
      valid(MemoryItem, JSON.stringify(item));
      valid(MemoryCreated.allOf[1], JSON.stringify({ deduplicated, replaced }));
      expect(deduplicated).toBe(false);
      expect(readFileSync(join(vault, memory.path), 'utf8')).toContain('My bank is the Sparkasse');

      expect(auditClients()).toEqual([
        { client: 'cli', action: 'note.create', target: created.path },
        { client: 'cli', action: 'reminder.create', target: reminder.path },
        { client: 'cli', action: 'reminder.create', target: expect.stringMatching(/ferns/) },
        { client: 'cli', action: 'memory.add', target: memory.path },
      ]);
      // No scheduler ran on this data folder: it never recorded a start.
      const db = new Database(join(dataDir, 'cairn.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT count(*) AS n FROM scheduler_meta').get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }

      const status = cli(['status', '--json']);
      expect(status.status).toBe(0);
      const state = valid(StatusResponse, status.stdout) as StatusResponse;
      expect(state.scheduler.reminders).toBeGreaterThan(0);
      expect(cli(['status']).stdout).toMatch(/^companion \S+: not running/);
    },
    SLOW,
  );

  it(
    'on a terminal: colour unless NO_COLOR, and a question before writing a guessed time',
    () => {
      const coloured = onTerminal(['search', 'visa fee']);
      expect(coloured.status).toBe(0);
      expect(coloured.stdout).toContain(`${ESC}36mTravel/Visa rules.md:`);
      const plain = onTerminal(['search', 'visa fee'], { env: { NO_COLOR: '1' } });
      expect(plain.stdout).toContain('Travel/Visa rules.md:');
      expect(plain.stdout).not.toContain(ESC);

      const before = readdirSync(join(vault, 'Cairn/Reminders')).length;
      const declined = onTerminal(['remind', 'feed the cat tomorrow at 7'], {
        input: 'n\n',
        env: { NO_COLOR: '1' },
      });
      expect(declined.stdout).toContain('"tomorrow at 7" has no am/pm: read as 07:00');
      expect(declined.stdout).toContain('Write this reminder? [y/N]');
      expect(declined.status).toBe(1);
      expect(readdirSync(join(vault, 'Cairn/Reminders'))).toHaveLength(before);

      const accepted = onTerminal(['remind', 'feed the cat tomorrow at 7'], {
        input: 'y\n',
        env: { NO_COLOR: '1' },
      });
      expect(accepted.status, accepted.stdout).toBe(0);
      expect(accepted.stdout).toMatch(/Written: Cairn\/Reminders\/feed-the-cat\.md/);
      expect(readdirSync(join(vault, 'Cairn/Reminders'))).toHaveLength(before + 1);
    },
    SLOW,
  );
});

describe('with a companion running on the same vault', () => {
  let server: { child: ChildProcess; exit: Promise<unknown>; output: () => string } | undefined;
  let base: string;

  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const child = spawn(process.execPath, [CLI, '--port', String(port)], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    server = {
      child,
      exit: new Promise((resolve) => child.on('exit', resolve)),
      output: () => output,
    };
    base = `http://127.0.0.1:${port}`;
    for (let attempt = 0; attempt < 600; attempt++) {
      if (child.exitCode !== null) throw new Error(`companion exited:\n${output}`);
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {
        // not yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`companion did not start:\n${output}`);
  }, SLOW);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });

  it(
    'talks to it with the stored token: same answers, writes in its audit log as cli',
    async () => {
      const status = cli(['status']);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toContain(`running at ${base}`);
      valid(StatusResponse, cli(['status', '--json']).stdout);

      const found = cli(['search', 'visa fee', '--json']);
      expect(found.status).toBe(0);
      expect(
        (valid(SearchResponse, found.stdout) as SearchResponse).results[0]?.citation.path,
      ).toBe('Travel/Visa rules.md');
      const answer = cli(['ask', 'What is the visa fee?', '--json']);
      expect((valid(AnswerResponse, answer.stdout) as AnswerResponse).answer).toContain('€90');

      const note = cli([
        'note',
        'Served note',
        '--body',
        'Written while the companion ran.',
        '--json',
      ]);
      expect(note.status, note.stderr).toBe(0);
      const created = valid(NoteCreated, note.stdout) as NoteCreated;
      const remind = cli(['remind', 'renew the parking permit in 3 days', '--json']);
      expect(remind.status, remind.stderr).toBe(0);
      const reminder = valid(ReminderCreated, remind.stdout) as ReminderCreated;
      // The running scheduler has it: the server's own reminder list shows its next fire.
      const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
      const auth = { authorization: `Bearer ${token}` };
      const fromServer = (await (
        await fetch(`${base}/api/v1/reminders/${encodeURIComponent(reminder.id)}`, {
          headers: auth,
        })
      ).json()) as { next_fire: string | null };
      expect(fromServer.next_fire).toBe(reminder.next_fire);
      expect(reminder.next_fire).not.toBeNull();

      const audit = (await (
        await fetch(`${base}/api/v1/audit?limit=2`, { headers: auth })
      ).json()) as {
        entries: Array<{ client: string; action: string; path: string }>;
      };
      expect(audit.entries).toMatchObject([
        { client: 'cli', action: 'reminder.create', path: reminder.path },
        { client: 'cli', action: 'note.create', path: created.path },
      ]);

      const wrongToken = cli(['status'], {
        env: { CAIRN_TOKEN: 'not-the-token-of-this-companion' },
      });
      expect(wrongToken.status).toBe(3);
      expect(wrongToken.stderr).toContain('CAIRN_TOKEN');
    },
    SLOW,
  );
});

describe('help and completion', () => {
  it.each(['search', 'ask', 'remind', 'note', 'reminders', 'remember', 'status'])(
    '%s --help',
    (name) => {
      const help = cli([name, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: cairn-companion ${name}`));
      expect(help.stdout).toContain('Exit codes: 0');
    },
  );

  it('prints completion scripts that the shells accept', () => {
    const bash = cli(['completion', 'bash']);
    expect(bash.status).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _cairn_companion cairn-companion');
    expect(spawnSync('bash', ['-n'], { input: bash.stdout, encoding: 'utf8' }).status).toBe(0);
    // The completion itself: `cairn-companion se<TAB>` and `search --ty<TAB>` then its values.
    const complete = (line: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${bash.stdout}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _cairn_companion; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    expect(complete('cairn-companion se')).toBe('search');
    expect(complete('cairn-companion search --ty')).toBe('--type');
    expect(complete("cairn-companion search --type ''")).toBe('note pdf reminder');
    expect(complete("cairn-companion reminders --due ''")).toBe('today this-week overdue');

    const zsh = cli(['completion', 'zsh']);
    expect(zsh.status).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef cairn-companion\n/);
    const fish = cli(['completion', 'fish']);
    expect(fish.status).toBe(0);
    expect(fish.stdout).toContain(
      '__fish_seen_subcommand_from search" -l type -x -a "note pdf reminder"',
    );
    const bad = cli(['completion', 'tcsh']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown shell "tcsh"');
  });
});
