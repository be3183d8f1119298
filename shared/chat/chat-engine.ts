/**
 * The chat engine (docs/chat.md): route → validate → run exactly one tool through the ports →
 * optionally phrase an answer with an LLM → stream events (shared/protocol/chat.ts). No loops:
 * whatever a tool returns, the turn ends.
 *
 * Event order follows the protocol: the assistant's text as `token`s, then at most one `tool`
 * (name, checked arguments and the result envelope), at most one `citations`, then exactly one
 * `done` (with the conversation's path when it was saved) or `error`. A request that never
 * reaches a tool (blank message, bad zone) ends in `error`; a tool that fails sends its `tool`
 * event with the failure envelope, then `error` with the same code and message.
 *
 * The tools themselves run in the tool runner (tool-runner.ts), which outside clients call
 * directly; the engine routes, streams, and keeps the conversation.
 */
import type { Clock } from '../ports';
import type { ChatEvent } from '../protocol/chat';
import type { Citation } from '../protocol/citation';
import { routeMessage, type RouteContext } from './intent-router';
import type { AbortSignalLike, MessageRouter, RoutedMessage } from './ports';
import { ToolRunner, describe, toToolError } from './tool-runner';
import type { ToolOutcome } from './tool-runner';
import { CAIRN_SOURCE, type ToolCaller } from './tool-policy';
import type { ClientToolOutcome, ToolRunnerDeps, UndoAction } from './tool-runner';
import {
  WRITE_TOOLS,
  toolFailure,
  writeScopeRefusal,
  type ToolName,
  type ToolResult,
} from './tool-schemas';

export type {
  AnswerData,
  AppendedData,
  ClientToolOutcome,
  NoteCreatedData,
  ReminderListData,
  ReminderWrittenData,
  SearchData,
  UndoAction,
} from './tool-runner';

/** One finished turn, for the conversation file. */
export interface ChatTurn {
  /** Epoch ms the message arrived. */
  at: number;
  user: string;
  assistant: string;
  tool?: ToolName;
  /** The tool's result envelope, when a tool ran. */
  result?: ToolResult;
  citations: Citation[];
}

/** Saves turns; answers the conversation's vault path. */
export interface ConversationSink {
  record(conversation: string | undefined, turn: ChatTurn): Promise<string>;
}

interface ChatEngineOwnDeps {
  clock: Clock;
  /** The user's IANA zone; read per turn so a settings change applies. */
  zone: () => string;
  /** An LLM router (Ollama); without one, the deterministic rules route. */
  router?: MessageRouter;
  conversations?: ConversationSink;
}

/**
 * The engine's own needs, and either the tool runner it runs on (`tools`: a host whose other
 * callers share it, as the companion's MCP and OpenAI routes do) or the ports to build one from.
 */
export type ChatEngineDeps = ChatEngineOwnDeps & ({ tools: ToolRunner } | ToolRunnerDeps);

export interface ChatTurnOptions {
  /** Conversation to continue (vault path); a new one is started when absent. */
  conversation?: string;
  /** Phrase answers with the LLM when one is configured; default true. */
  summarize?: boolean;
  signal?: AbortSignalLike;
  /**
   * False when the caller's token lacks the write scope (docs/clients.md): a routed write tool is
   * refused with FORBIDDEN instead of run. Default true.
   */
  canWrite?: boolean;
  /** False: do not keep this turn as a chat note (clients that keep their own history). */
  record?: boolean;
  /**
   * Who is asking, for the tool gate's scope check and run log (docs/tools.md). Absent: the
   * device's own user, limited to reading when `canWrite` is false.
   */
  caller?: ToolCaller;
}

const rulesRouter: MessageRouter = {
  route: (message, context) => Promise.resolve({ ...routeMessage(message, context), via: 'rules' }),
};

export class ChatEngine {
  /** The engine's tool runner, for callers that run a tool without a chat turn. */
  readonly tools: ToolRunner;

  private readonly deps: ChatEngineOwnDeps;

  constructor(deps: ChatEngineDeps) {
    this.deps = deps;
    this.tools = 'tools' in deps ? deps.tools : new ToolRunner(deps);
  }

  /** One chat turn as a stream of events; never throws (failures become an `error` event). */
  async *send(message: string, options: ChatTurnOptions = {}): AsyncGenerator<ChatEvent> {
    let at: number;
    let context: RouteContext;
    try {
      at = this.deps.clock.now();
      context = { now: at, zone: this.deps.zone() };
    } catch (error) {
      yield { type: 'error', error: toToolError(error, 'reading the clock and time zone') };
      return;
    }
    let routed: RoutedMessage;
    try {
      routed = await (this.deps.router ?? rulesRouter).route(message, context);
    } catch (error) {
      // A broken LLM router must not cost the user their message.
      routed = {
        ...routeMessage(message, context),
        via: 'rules',
        fallbackReason: `the model router failed (${describe(error)})`,
      };
    }
    if (routed.fallbackReason !== undefined) {
      yield { type: 'token', text: `_(${routed.fallbackReason}; used the built-in rules.)_\n\n` };
    }

    if (routed.kind === 'invalid') {
      yield { type: 'error', error: routed.error };
      return;
    }
    if (routed.kind === 'reply') {
      yield { type: 'token', text: routed.text };
      yield await this.finish(options, {
        at,
        user: message,
        assistant: routed.text,
        citations: [],
      });
      return;
    }

    const outcome = yield* this.runRouted(routed, message, options, context);
    let assistant = '';
    if (outcome.stream !== undefined) {
      for await (const piece of outcome.stream) {
        if (piece === '') continue;
        assistant += piece;
        yield { type: 'token', text: piece };
      }
    } else if (outcome.text !== '') {
      assistant = outcome.text;
      yield { type: 'token', text: outcome.text };
    }
    const called =
      routed.kind === 'tool'
        ? { name: routed.call.name, source: CAIRN_SOURCE, args: routed.call.args }
        : {
            name: routed.name,
            source: this.tools.policy?.descriptor(routed.name)?.source ?? 'unknown',
            args: routed.args,
          };
    yield { type: 'tool', ...called, result: outcome.result };
    const citations = outcome.citations ?? [];
    if (citations.length > 0) yield { type: 'citations', citations };
    if (!outcome.result.success) {
      yield { type: 'error', error: outcome.result.error };
      return;
    }
    yield await this.finish(options, {
      at,
      user: message,
      assistant,
      ...(routed.kind === 'tool' ? { tool: routed.call.name } : {}),
      result: outcome.result,
      citations,
    });
  }

  /**
   * The routed call through the tool runner's gate (docs/tools.md), yielding an `ask` event
   * while the user decides; without a policy, the write-scope check of old and the run.
   */
  private async *runRouted(
    routed: Extract<RoutedMessage, { kind: 'tool' | 'external' }>,
    message: string,
    options: ChatTurnOptions,
    context: RouteContext,
  ): AsyncGenerator<ChatEvent, ToolOutcome> {
    // "remind me about the dentist …" with nothing remembered about it is a plain reminder.
    const runOptions = { ...options, plainReminderWithoutMemory: true };
    if (this.tools.policy === undefined && routed.kind === 'tool') {
      return options.canWrite === false && WRITE_TOOLS.has(routed.call.name)
        ? { text: '', result: toolFailure(writeScopeRefusal(routed.call.name)) }
        : await this.tools.run(routed.call, runOptions, context);
    }
    const caller: ToolCaller = options.caller ?? {
      tokenName: 'local',
      client: 'chat',
      ...(options.canWrite === false ? { scopes: ['read'] } : {}),
    };
    const name = routed.kind === 'tool' ? routed.call.name : routed.name;
    const args = routed.kind === 'tool' ? routed.call.args : routed.args;
    const steps =
      routed.kind === 'tool'
        ? this.tools.cairnSteps(routed.call, runOptions, context)
        : this.tools.externalSteps(routed.name, routed.args);
    const gate = this.tools.gated(
      {
        name,
        args,
        caller,
        reason: routed.why ?? `You asked: “${message.slice(0, 300)}”`,
        ...(options.conversation === undefined ? {} : { conversation: options.conversation }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      steps,
    );
    for (;;) {
      const step = await gate.next();
      if (step.done === true) return step.value;
      yield { type: 'ask', ask: step.value.ask };
    }
  }

  /** Runs one unchecked tool call with the standard envelope (see `ToolRunner.execute`). */
  async execute(name: string, args: unknown): Promise<ToolResult> {
    return (await this.tools.execute(name, args)).result;
  }

  /** `execute` plus what the chat would have said and cited. */
  runTool(name: string, args: unknown): Promise<ClientToolOutcome> {
    return this.tools.execute(name, args);
  }

  /** Reverses a write (see `ToolRunner.undo`). */
  undo(action: UndoAction): ReturnType<ToolRunner['undo']> {
    return this.tools.undo(action);
  }

  private finish(options: ChatTurnOptions, turn: ChatTurn): Promise<ChatEvent> {
    return finishTurn(this.deps.conversations, options, turn);
  }
}

/** Saves a finished turn (unless the options say not to) and answers the turn's `done`. */
export async function finishTurn(
  sink: ConversationSink | undefined,
  options: ChatTurnOptions,
  turn: ChatTurn,
): Promise<ChatEvent> {
  if (sink === undefined || options.record === false) return { type: 'done' };
  try {
    const conversation = await sink.record(options.conversation, turn);
    return { type: 'done', conversation };
  } catch {
    // The answer was given; a failed transcript write must not turn it into an error.
    return { type: 'done' };
  }
}
