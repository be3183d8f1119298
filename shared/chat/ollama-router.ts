/**
 * Routing with Ollama's native tool calling (docs/chat.md): `/api/chat`, non-streaming, with
 * `tools: toolSpecs()`. The model's call is checked with `validateToolCall` before anything
 * runs. Whenever the model's choice cannot be used (server down, timeout, HTTP error, a reply
 * that is not JSON, no tool chosen, several tools, an unknown tool, arguments that are not JSON
 * or break the schema) the deterministic rules route the message instead, and the reason is
 * kept in `fallbackReason` for the chat to show. The rules are the better fallback than a bare
 * `answer`: they already send questions to `answer` and still understand "remind me …".
 *
 * Blank, over-long or control-character messages and small talk never reach the model: the
 * rules settle those without it. A reminder asked for with no time at all keeps the rules'
 * question even when the model proposes one: small models make up times.
 */
import { formatWall } from '../reminders/local-time';
import { routeMessage, type RouteContext } from './intent-router';
import {
  OllamaTimeoutError,
  ollamaErrorMessage,
  ollamaUrl,
  readAll,
  type OllamaHttp,
} from './ollama-http';
import type { MessageRouter, RoutedMessage } from './ports';
import { isToolName, toolSpecs, validateToolCall } from './tool-schemas';
import type { FunctionToolSpec } from './tool-schemas';
import { weekdayOf, zoneNow } from './zone-calendar';

export const DEFAULT_ROUTING_TIMEOUT_MS = 15_000;

export interface OllamaRouterOptions {
  http: OllamaHttp;
  /** e.g. `http://127.0.0.1:11434`. */
  baseUrl: string;
  /** A model with tool support, e.g. `llama3.2` or `qwen2.5`. */
  model: string;
  timeoutMs?: number;
  /**
   * The user's MCP servers' tools (docs/tools.md), offered beside Cairn's own; a call to one of
   * them is routed as `external` and checked by the tool runner's gate.
   */
  extraTools?: () => FunctionToolSpec[];
}

const WEEKDAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
];

export class OllamaRouter implements MessageRouter {
  constructor(private readonly options: OllamaRouterOptions) {}

  async route(message: string, context: RouteContext): Promise<RoutedMessage> {
    const byRules = routeMessage(message, context);
    if (byRules.kind === 'invalid' || byRules.rule === 'small-talk' || byRules.rule === 'help') {
      return { ...byRules, via: 'rules' };
    }
    const proposal = await this.ask(message, context);
    if (!proposal.ok) return { ...byRules, via: 'rules', fallbackReason: proposal.reason };
    const why = proposal.why === '' ? {} : { why: proposal.why };
    if (proposal.kind === 'external') {
      return {
        kind: 'external',
        name: proposal.name,
        args: proposal.args,
        rule: 'llm',
        via: 'llm',
        ...why,
      };
    }
    // Small models invent a time for "remind me to call mom"; a reminder nobody timed asks.
    if (
      byRules.kind === 'reply' &&
      byRules.missingTime &&
      proposal.call.name === 'create_reminder'
    ) {
      return { ...byRules, via: 'rules' };
    }
    return { kind: 'tool', call: proposal.call, rule: 'llm', via: 'llm', ...why };
  }

  private async ask(
    message: string,
    context: RouteContext,
  ): Promise<
    | {
        ok: true;
        kind: 'cairn';
        call: Extract<RoutedMessage, { kind: 'tool' }>['call'];
        why: string;
      }
    | { ok: true; kind: 'external'; name: string; args: unknown; why: string }
    | { ok: false; reason: string }
  > {
    const extra = this.options.extraTools?.() ?? [];
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_ROUTING_TIMEOUT_MS;
    let status: number;
    let text: string;
    try {
      const response = await this.options.http.post({
        url: ollamaUrl(this.options.baseUrl, '/api/chat'),
        body: JSON.stringify({
          model: this.options.model,
          stream: false,
          messages: [
            { role: 'system', content: systemPrompt(context) },
            { role: 'user', content: message },
          ],
          tools: [...toolSpecs(), ...extra],
          options: { temperature: 0 },
        }),
        timeoutMs,
      });
      status = response.status;
      text = await readAll(response.body);
    } catch (error) {
      if (error instanceof OllamaTimeoutError) return { ok: false, reason: error.message };
      return { ok: false, reason: `Ollama is not reachable (${describe(error)})` };
    }
    if (status !== 200) return { ok: false, reason: ollamaErrorMessage(status, text) };

    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      return { ok: false, reason: "Ollama's reply was not JSON" };
    }
    const said = (reply as { message?: { content?: unknown } } | null)?.message?.content;
    const why = typeof said === 'string' ? said.trim().slice(0, 500) : '';
    const calls = (reply as { message?: { tool_calls?: unknown } } | null)?.message?.tool_calls;
    if (calls === undefined || calls === null || (Array.isArray(calls) && calls.length === 0)) {
      return { ok: false, reason: 'the model chose no tool' };
    }
    if (!Array.isArray(calls))
      return { ok: false, reason: 'the model sent tool_calls that are not a list' };
    if (calls.length > 1) {
      return { ok: false, reason: `the model proposed ${calls.length} tool calls; Cairn runs one` };
    }
    const fn = (calls[0] as { function?: { name?: unknown; arguments?: unknown } } | null)
      ?.function;
    if (typeof fn?.name !== 'string')
      return { ok: false, reason: 'the model sent a tool call without a name' };
    if (!isToolName(fn.name) && extra.some((spec) => spec.function.name === fn.name)) {
      return { ok: true, kind: 'external', name: fn.name, args: fn.arguments ?? {}, why };
    }
    const check = validateToolCall(fn.name, withDefaults(fn.name, fn.arguments, context));
    if (!check.ok)
      return { ok: false, reason: `the model's tool call was rejected: ${check.error.message}` };
    return { ok: true, kind: 'cairn', call: check.call, why };
  }
}

/** A reminder without a zone is in the user's zone: models rarely repeat it. */
function withDefaults(name: string, args: unknown, context: RouteContext): unknown {
  if (
    name !== 'create_reminder' ||
    args === null ||
    typeof args !== 'object' ||
    Array.isArray(args)
  ) {
    return args;
  }
  const given = args as Record<string, unknown>;
  return given.timezone === undefined || given.timezone === null
    ? { ...given, timezone: context.zone }
    : args;
}

/** Short and concrete, for small local models; the date lets them resolve "next Monday". */
export function systemPrompt(context: RouteContext): string {
  const now = zoneNow(context.now, context.zone);
  const weekday = WEEKDAY_NAMES[weekdayOf(now.today)] ?? '';
  return [
    'You route one message from the user of a note-taking app to exactly one tool.',
    `Now it is ${weekday} ${formatWall(now.wall).slice(0, 16).replace('T', ' ')} in ${context.zone}.`,
    'Write dates and times as local ISO 8601 without offset, e.g. 2026-11-23T17:00.',
    'Questions about the notes go to "answer"; requests to find notes go to "search".',
    'Reminder titles are short and leave out the time. Never invent ids.',
  ].join('\n');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
