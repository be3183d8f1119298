import { randomBytes } from 'node:crypto';
import type { PendingAsk } from '../../shared/chat/tool-policy';
import type { Clock } from '../../shared/ports';
import type { AskDecision, ToolAsk } from '../../shared/protocol/tools';

/** An unanswered ask is refused after this long (docs/tools.md). */
export const DEFAULT_ASK_TIMEOUT_MS = 120_000;

interface Waiting {
  ask: ToolAsk;
  settle(decision: AskDecision | 'expired'): void;
  cancelTimer(): void;
}

export class AskNotFoundError extends Error {
  override name = 'AskNotFoundError';
}

/**
 * Tool calls waiting for the user's yes (docs/tools.md). In memory: a chat waits on its ask
 * while its stream is open, so nothing outlives the process. Each ask settles exactly once:
 * answered (`POST /api/v1/tools/asks/:id`), expired, or cancelled when the companion closes.
 */
export class PendingAsks {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs = DEFAULT_ASK_TIMEOUT_MS,
    private readonly schedule: (ms: number, fn: () => void) => () => void = scheduleTimer,
  ) {}

  open(request: Omit<ToolAsk, 'id' | 'expires_at'>): PendingAsk {
    const id = `ask-${randomBytes(9).toString('base64url')}`;
    const ask: ToolAsk = {
      ...request,
      id,
      expires_at: new Date(this.clock.now() + this.timeoutMs).toISOString(),
    };
    let settle: (decision: AskDecision | 'expired') => void = () => undefined;
    const decision = new Promise<AskDecision | 'expired'>((resolve) => {
      settle = resolve;
    });
    const cancelTimer = this.schedule(this.timeoutMs, () => this.settle(id, 'expired'));
    this.waiting.set(id, { ask, settle, cancelTimer });
    return { ask, decision };
  }

  list(): ToolAsk[] {
    return [...this.waiting.values()].map((waiting) => waiting.ask);
  }

  get(id: string): ToolAsk | undefined {
    return this.waiting.get(id)?.ask;
  }

  /** Answers an ask; AskNotFoundError when it is unknown, answered or expired already. */
  answer(id: string, decision: AskDecision): ToolAsk {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) {
      throw new AskNotFoundError(`no pending ask "${id}" (answered already, or it expired)`);
    }
    this.settle(id, decision);
    return waiting.ask;
  }

  /** Every open ask expires (shutdown): the chats waiting on them end with a refusal. */
  close(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, 'expired');
  }

  private settle(id: string, decision: AskDecision | 'expired'): void {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return;
    this.waiting.delete(id);
    waiting.cancelTimer();
    waiting.settle(decision);
  }
}

/** A released-on-cancel timer that does not keep the process alive. */
export function scheduleTimer(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
