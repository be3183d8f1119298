import { beforeEach, describe, expect, it } from 'vitest';
import { ChatPortError } from '../../../shared/chat/ports';
import type { Searcher } from '../../../shared/chat/ports';
import { ToolRunner } from '../../../shared/chat/tool-runner';
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
