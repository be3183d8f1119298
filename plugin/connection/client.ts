/**
 * The plugin's one client of the companion's HTTP API (companion/README.md): every request to
 * the companion goes through `send` here, which reads the endpoint, checks the URL and offline
 * mode and adds the token. The status check (settings' "Test connection", the status bar, the
 * chat pane), `call` (week, digest, reminder actions), the test push, and the audit and
 * reminder clients (plugin/audit/audit-client.ts, plugin/reminders/stores/companion-reminders.ts)
 * all use it.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { MissedResponse, ReminderListResponse } from '../../shared/protocol/reminders';
import type { MissedReminder, Reminder } from '../../shared/protocol/reminders';
import { checkSchema } from '../../shared/protocol/validate';
import { checkHttpUrl, offlineModeViolation } from '../../shared/settings/validation';
import type { CompanionStatusSummary, ConnectionState, SemanticSummary } from './connection-state';
import type { HttpRequest, HttpResponse, HttpTransport } from './http-transport';
import { errorBodyMessage, isRecord, parseJsonOrUndefined } from '../../shared/protocol/json';

/** What the client needs from settings; read on every call so edits apply at once. */
export interface CompanionEndpoint {
  url: string;
  token: string;
  offlineMode: boolean;
}

/** What `send` did: answered, not sent (with why), or sent and not answered. */
export type CompanionExchange =
  | { readonly kind: 'answered'; readonly url: string; readonly response: HttpResponse }
  | {
      readonly kind: 'not-sent';
      readonly reason: 'no-url' | 'bad-url' | 'offline-mode' | 'no-token';
      readonly message: string;
    }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: unknown };

export interface CompanionRequest {
  readonly method: HttpRequest['method'];
  /** Path and query under the companion's URL, e.g. `/api/v1/audit?limit=50`. */
  readonly path: string;
  /** Sent as JSON. */
  readonly body?: unknown;
}

/** What `callForFields` resolves with: the checked body, or why not (with the companion's field). */
export type CompanionAnswer<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      /** A sentence naming the request and status. */
      readonly message: string;
      readonly status?: number;
      /** The companion's own message, for showing next to `field`. */
      readonly detail?: string;
      /** The request field the companion named (`schedule`, `timezone`, …). */
      readonly field?: string;
    };

export class CompanionClient {
  constructor(
    private readonly transport: HttpTransport,
    private readonly endpoint: () => CompanionEndpoint,
  ) {}

  /**
   * One request to the companion with the token: the one place a URL is checked against offline
   * mode and the token added. Never throws. A missing token is only refused with
   * `requireToken` (a companion without tokens configured answers 401 itself).
   */
  async send(
    request: CompanionRequest,
    options: { requireToken?: boolean } = {},
  ): Promise<CompanionExchange> {
    const { url, token, offlineMode } = this.endpoint();
    if (url.trim() === '') {
      return { kind: 'not-sent', reason: 'no-url', message: 'no companion URL is set' };
    }
    const checked = checkHttpUrl(url);
    if (!checked.ok) return { kind: 'not-sent', reason: 'bad-url', message: checked.message };
    const blocked = offlineModeViolation(checked.url, offlineMode);
    if (blocked) return { kind: 'not-sent', reason: 'offline-mode', message: blocked };
    if (options.requireToken === true && token.trim() === '') {
      return { kind: 'not-sent', reason: 'no-token', message: 'no companion token is set' };
    }
    try {
      const response = await this.transport.request({
        url: `${checked.url}${request.path}`,
        method: request.method,
        headers: { Authorization: `Bearer ${token.trim()}` },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
      return { kind: 'answered', url: checked.url, response };
    } catch (error) {
      return { kind: 'unreachable', url: checked.url, error };
    }
  }

  async checkConnection(): Promise<ConnectionState> {
    const { url, token, offlineMode } = this.endpoint();
    if (url.trim() === '') return { kind: 'not-configured' };
    const checked = checkHttpUrl(url);
    if (!checked.ok) return { kind: 'invalid-url', message: `Companion URL: ${checked.message}` };
    const blocked = offlineModeViolation(checked.url, offlineMode);
    if (blocked) return { kind: 'blocked-offline', message: blocked };

    let health: HttpResponse;
    try {
      health = await this.transport.request({ url: `${checked.url}/health`, method: 'GET' });
    } catch (error) {
      return { kind: 'unreachable', message: `${checked.url} (${errorMessage(error)})` };
    }
    const healthBody = parseJsonOrUndefined(health.text);
    if (health.status !== 200 || !isRecord(healthBody) || healthBody.status !== 'ok') {
      return {
        kind: 'unexpected',
        message: `GET ${checked.url}/health answered ${health.status} without {"status":"ok"}; is this a Cairn companion?`,
      };
    }

    if (token.trim() === '') {
      return {
        kind: 'unauthorized',
        message:
          'The companion is reachable, but no token is set. Paste the token it printed on first start.',
      };
    }
    let status: HttpResponse;
    try {
      status = await this.transport.request({
        url: `${checked.url}/api/v1/status`,
        method: 'GET',
        headers: { Authorization: `Bearer ${token.trim()}` },
      });
    } catch (error) {
      return { kind: 'unreachable', message: `${checked.url} (${errorMessage(error)})` };
    }
    if (status.status === 401) {
      return {
        kind: 'unauthorized',
        message:
          'The companion rejected the token (401). Copy it again from the companion (or its CAIRN_TOKEN).',
      };
    }
    if (status.status !== 200) {
      return {
        kind: 'unexpected',
        message: `GET /api/v1/status answered ${status.status}${apiErrorSuffix(status.text)}.`,
      };
    }
    const summary = parseStatus(parseJsonOrUndefined(status.text));
    if (typeof summary === 'string') {
      return { kind: 'unexpected', message: `GET /api/v1/status: ${summary}.` };
    }
    return { kind: 'connected', status: summary };
  }

  /**
   * Upcoming (`GET /api/v1/reminders?status=active`) and missed (`/missed`) reminders from the
   * paired companion, checked against the protocol schemas; a string says what went wrong.
   */
  async companionReminders(): Promise<
    { reminders: Reminder[]; missed: MissedReminder[] } | string
  > {
    const { url, token, offlineMode } = this.endpoint();
    const checked = checkHttpUrl(url);
    if (url.trim() === '' || !checked.ok) return 'no companion URL is set';
    const blocked = offlineModeViolation(checked.url, offlineMode);
    if (blocked) return blocked;
    const get = async <T extends TSchema>(path: string, schema: T): Promise<Static<T> | string> => {
      let response: HttpResponse;
      try {
        response = await this.transport.request({
          url: `${checked.url}${path}`,
          method: 'GET',
          headers: { Authorization: `Bearer ${token.trim()}` },
        });
      } catch (error) {
        return `${checked.url} is unreachable (${errorMessage(error)})`;
      }
      if (response.status !== 200) {
        return `GET ${path.split('?')[0]} answered ${response.status}${apiErrorSuffix(response.text)}`;
      }
      const body = checkSchema(schema, parseJsonOrUndefined(response.text));
      if (!body.ok) return `GET ${path.split('?')[0]}: ${body.violation.message}`;
      return body.value;
    };
    const list = await get('/api/v1/reminders?status=active&limit=100', ReminderListResponse);
    if (typeof list === 'string') return list;
    const missed = await get('/api/v1/reminders/missed?limit=100', MissedResponse);
    if (typeof missed === 'string') return missed;
    return { reminders: list.reminders, missed: missed.missed };
  }

  /**
   * One JSON call to the companion, its answer checked against `schema` (docs/clients.md's week,
   * digest and reminder actions use it). Resolves with the body, or a sentence saying what
   * went wrong; never throws.
   */
  async call<T extends TSchema>(
    method: 'GET' | 'POST',
    path: string,
    schema: T,
    body?: unknown,
  ): Promise<Static<T> | string> {
    const answer = await this.callForFields(method, path, schema, body);
    return answer.ok ? answer.value : answer.message;
  }

  /**
   * `call` for forms: a refusal keeps the companion's error `field` (`{ error: { code, message,
   * field } }`), so a 400 is shown next to the field it names. Never throws.
   */
  async callForFields<T extends TSchema>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    schema: T,
    body?: unknown,
  ): Promise<CompanionAnswer<Static<T>>> {
    const sent = await this.send({ method, path, ...(body === undefined ? {} : { body }) });
    if (sent.kind === 'not-sent') {
      return {
        ok: false,
        message: sent.reason === 'bad-url' ? 'no companion URL is set' : sent.message,
      };
    }
    if (sent.kind === 'unreachable') {
      return { ok: false, message: `${sent.url} is unreachable (${errorMessage(sent.error)})` };
    }
    const response = sent.response;
    if (response.status < 200 || response.status > 299) {
      const parsed = parseJsonOrUndefined(response.text);
      const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
      return {
        ok: false,
        status: response.status,
        message: `${method} ${path.split('?')[0]} answered ${response.status}${apiErrorSuffix(response.text)}`,
        ...(typeof error?.message === 'string' ? { detail: error.message } : {}),
        ...(typeof error?.field === 'string' ? { field: error.field } : {}),
      };
    }
    const checkedBody = checkSchema(schema, parseJsonOrUndefined(response.text));
    if (!checkedBody.ok) {
      return {
        ok: false,
        message: `${method} ${path.split('?')[0]}: ${checkedBody.violation.message}`,
      };
    }
    return { ok: true, value: checkedBody.value };
  }

  /**
   * `POST /api/v1/push/test`: the companion sends a test notification to every subscribed
   * phone. Resolves with a sentence for the settings tab; never throws.
   */
  async sendTestPush(): Promise<{ ok: boolean; message: string }> {
    const { url, token, offlineMode } = this.endpoint();
    const checked = checkHttpUrl(url);
    if (url.trim() === '' || !checked.ok) {
      return { ok: false, message: 'Set the companion URL first.' };
    }
    const blocked = offlineModeViolation(checked.url, offlineMode);
    if (blocked) return { ok: false, message: blocked };
    if (token.trim() === '') return { ok: false, message: 'Set the companion token first.' };
    let response: HttpResponse;
    try {
      response = await this.transport.request({
        url: `${checked.url}/api/v1/push/test`,
        method: 'POST',
        headers: { Authorization: `Bearer ${token.trim()}` },
        body: '{}',
      });
    } catch (error) {
      return { ok: false, message: `${checked.url} is unreachable (${errorMessage(error)}).` };
    }
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, message: 'Test notification sent to the paired phones.' };
    }
    return {
      ok: false,
      message: `POST /api/v1/push/test answered ${response.status}${apiErrorSuffix(response.text)}.`,
    };
  }
}

/** Reads the fields of `GET /api/v1/status` the plugin shows; a string names what is wrong. */
export function parseStatus(body: unknown): CompanionStatusSummary | string {
  if (!isRecord(body)) return 'the body is not a JSON object';
  if (typeof body.version !== 'string') return '"version" is missing or not text';
  const index = body.index;
  if (!isRecord(index)) return '"index" is missing or not an object';
  if (!isCount(index.files)) return '"index.files" is missing or not a count';
  if (!isCount(index.pending)) return '"index.pending" is missing or not a count';
  if (!Array.isArray(index.failed)) return '"index.failed" is missing or not a list';
  let embedding: string | null = null;
  if (isRecord(index.embedding) && typeof index.embedding.model === 'string') {
    const dims = isCount(index.embedding.dims) ? ` (${index.embedding.dims} dims)` : '';
    embedding = `${index.embedding.model}${dims}`;
  }
  return {
    version: body.version,
    files: index.files,
    pending: index.pending,
    failed: index.failed.length,
    embedding,
    semantic: parseSemantic(index.semantic),
  };
}

/** `index.semantic`, or null when absent or not in the expected shape (older companions). */
function parseSemantic(value: unknown): SemanticSummary | null {
  if (!isRecord(value)) return null;
  const { state, provider, embedded, total, reason } = value;
  if (state !== 'ready' && state !== 'embedding' && state !== 'off') return null;
  if (provider !== 'builtin' && provider !== 'ollama' && provider !== 'none') return null;
  if (!isCount(embedded) || !isCount(total)) return null;
  return {
    state,
    provider,
    embedded,
    total,
    reason: typeof reason === 'string' ? reason : null,
  };
}

/** `: <message>` from the companion's `{ "error": { "code", "message" } }` body, if any. */
function apiErrorSuffix(text: string): string {
  const message = errorBodyMessage(parseJsonOrUndefined(text));
  return message === undefined ? '' : `: ${message}`;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
