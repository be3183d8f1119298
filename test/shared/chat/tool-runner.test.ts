import { beforeEach, describe, expect, it } from 'vitest';
import { ChatPortError } from '../../../shared/chat/ports';
import type { Searcher } from '../../../shared/chat/ports';
import { cairnToolDescriptor } from '../../../shared/chat/tool-policy';
import type { ToolPolicy, ToolRunRecord } from '../../../shared/chat/tool-policy';
import { ToolRunner } from '../../../shared/chat/tool-runner';
import { toolFailure } from '../../../shared/chat/tool-schemas';
import type { ToolRunnerDeps } from '../../../shared/chat/tool-runner';
import { ManualClock } from '../../fakes/clock';
import { FakeVault, reminderWriterOf } from './fake-chat-ports';

/*
 * The tool runner on its own, as outside clients (MCP, the OpenAI route) use it: a checked call
 * in, the envelope out, errors mapped in one place.
 */

const ZONE = 'Europe/Berlin';
let clock: ManualClock;
let vault: FakeVault;

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z');
  vault = new FakeVault(clock);
});

function runner(extra: Partial<ToolRunnerDeps> = {}): ToolRunner {
  return new ToolRunner({
    clock,
    zone: () => ZONE,
    notes: vault,
    reminderReader: vault,
    reminderWriter: reminderWriterOf(vault),
    searcher: vault,
    answerer: vault,
    ...extra,
  });
}

/** A host error the shared code knows nothing about, as the companion's ApiHttpError is. */
class HostError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const failingSearcher = (error: unknown): Searcher => ({
  search: () => Promise.reject(error),
});

describe('ToolRunner', () => {
  it('runs a checked call and answers the envelope, the text and the citations', async () => {
    vault.addNote('Garden', 'Plant the tulips in October.', 'Garden.md');
    const outcome = await runner().call({ name: 'search', args: { query: 'tulips' } });
    expect(outcome.result.success).toBe(true);
    expect(outcome.citations.map((citation) => citation.path)).toEqual(['Garden.md']);
    expect(outcome.text).toContain('Garden');
  });

  it("maps a host's own error once, through its toolError, keeping code, message and field", async () => {
    const outcome = await runner({
      searcher: failingSearcher(new HostError('VALIDATION_ERROR', 'from is after to', 'from')),
      toolError: (error) =>
        error instanceof HostError && error.code === 'VALIDATION_ERROR'
          ? { code: 'VALIDATION_ERROR', message: error.message, field: error.field! }
          : undefined,
    }).call({ name: 'search', args: { query: 'tulips' } });
    expect(outcome.result).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: 'from is after to', field: 'from' },
    });
  });

  it('maps ChatPortError itself, and anything unknown to INTERNAL_ERROR naming the tool', async () => {
    const port = await runner({
      searcher: failingSearcher(new ChatPortError('UNAVAILABLE', 'index not ready')),
      toolError: () => undefined,
    }).call({ name: 'search', args: { query: 'x' } });
    expect(port.result).toEqual({
      success: false,
      error: { code: 'UNAVAILABLE', message: 'index not ready' },
    });
    const unknown = await runner({
      searcher: failingSearcher(new HostError('WHATEVER', 'boom')),
    }).call({ name: 'search', args: { query: 'x' } });
    expect(unknown.result).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'search failed: boom' },
    });
  });

  it("maps what a gated run throws with the host's toolError too, and records the run", async () => {
    const runs: ToolRunRecord[] = [];
    const policy: ToolPolicy = {
      descriptor: (name) => cairnToolDescriptor(name as 'search', true),
      permission: () => 'allow',
      ask: () => {
        throw new Error('no ask expected');
      },
      allowForConversation: () => undefined,
      offline: () => false,
      limits: () => ({ timeoutMs: 60_000, outputCapChars: 100_000 }),
      now: () => clock.now(),
      schedule: () => () => undefined,
      recordRun: (run) => runs.push(run),
    };
    const seen: Array<[unknown, string]> = [];
    const thrown = new HostError(
      'EACCES',
      "EACCES: permission denied, open '/home/ana/Vault/a.md'",
    );
    const gate = runner({
      policy,
      toolError: (error, what) => {
        seen.push([error, what]);
        return { code: 'INTERNAL_ERROR', message: `${what} failed with an internal error` };
      },
    }).gated(
      { name: 'search', args: {}, caller: { tokenName: 'claude', client: 'mcp' }, reason: 'test' },
      {
        validate: () => undefined,
        run: () => Promise.reject(thrown),
        refused: (error) => ({ result: toolFailure(error) }),
      },
    );
    const step = await gate.next();
    expect(step.done).toBe(true);
    expect(step.value).toEqual({
      result: {
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'search failed with an internal error' },
      },
    });
    expect(seen).toEqual([[thrown, 'search']]);
    expect(runs.map((run) => [run.tool, run.outcome, run.errorCode])).toEqual([
      ['search', 'failed', 'INTERNAL_ERROR'],
    ]);
  });

  it('validates unchecked arguments in execute, and never reaches a port with them', async () => {
    let searched = 0;
    const outcome = await runner({
      searcher: {
        search: () => {
          searched++;
          return Promise.resolve([]);
        },
      },
    }).execute('search', { query: 'x', limit: 'lots' });
    expect(outcome.result).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', field: 'limit' },
    });
    expect(searched).toBe(0);
  });
});
