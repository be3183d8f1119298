/**
 * Tool calls waiting for the user's yes (docs/tools.md), for any host of the tool gate
 * (tool-policy.ts): the companion (companion/tools/) and the plugin's own chat
 * (plugin/chat/local-tool-policy.ts). In memory: a chat waits on its ask while its turn runs, so
 * nothing outlives the process. Each ask settles exactly once: answered, expired, or cancelled
 * when the host closes. The host injects the timer and the id source (no `node:*`, no DOM here).
 */
import type { Clock } from '../ports';
import type { AskDecision, ToolAsk } from '../protocol/tools';
import type { PendingAsk } from './tool-policy';

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

export class PendingAsks {
  private readonly waiting = new Map<string, Waiting>();

  /**
   * @param schedule runs `fn` after `ms`, answering what cancels it (a timer that must not keep
   *   the process alive, in the companion).
   * @param newId a fresh, unguessable ask id matching `ToolAskParams` (`ask-…`).
   */
  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly schedule: (ms: number, fn: () => void) => () => void,
    private readonly newId: () => string,
  ) {}

  open(request: Omit<ToolAsk, 'id' | 'expires_at'>): PendingAsk {
    const id = this.newId();
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

/** `ask-` and one base64url character per random byte (its low 6 bits): pass 12 bytes. */
export function askIdFrom(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let id = 'ask-';
  for (const byte of bytes) id += alphabet[byte & 63] ?? '';
  return id;
}
