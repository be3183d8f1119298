/**
 * The companion's audit log and tokens (docs/clients.md) for the plugin: `GET /api/v1/audit`
 * ("What did Cairn change?"), `GET /api/v1/tokens/self` (the settings' token line) and the
 * phone's pairing token (`POST /api/v1/tokens`). Pure:
 * HTTP goes through the plugin's transport seam, answers are checked against the protocol
 * schemas, and every failure comes back as a sentence instead of an exception.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  AuditListResponse,
  TokenCreateResponse,
  TokenSelfResponse,
} from '../../shared/protocol/audit';
import type { AuditEntry } from '../../shared/protocol/audit';
import { checkSchema } from '../../shared/protocol/validate';
import { CompanionClient } from '../connection/client';
import type { CompanionEndpoint } from '../connection/client';
import type { HttpResponse, HttpTransport } from '../connection/http-transport';
import { errorBodyMessage, parseJsonOrUndefined } from '../../shared/protocol/json';

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass to the next call for older entries; null on the last page. */
  next: string | null;
}

export class AuditClient {
  /** Every request goes through the connection's client (plugin/connection/client.ts). */
  private readonly companion: CompanionClient;

  constructor(transport: HttpTransport, endpoint: () => CompanionEndpoint) {
    this.companion = new CompanionClient(transport, endpoint);
  }

  /** One page of the audit log, newest first; a string says why it could not be read. */
  async page(cursor?: string, limit = 50): Promise<AuditPage | string> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== undefined) query.set('cursor', cursor);
    const body = await this.get(`/api/v1/audit?${query.toString()}`, AuditListResponse);
    if (typeof body === 'string') return body;
    return { entries: body.entries, next: body.next_cursor };
  }

  /** The token the plugin uses: its name and scopes. */
  async tokenSelf(): Promise<Static<typeof TokenSelfResponse> | string> {
    return this.get('/api/v1/tokens/self', TokenSelfResponse);
  }

  /**
   * A fresh read+write token for pairing a phone (docs/clients.md), replacing the previous one of that
   * name (so re-pairing revokes the old phone token). Needs the plugin's token to be `admin`.
   */
  async pairingToken(name = 'phone'): Promise<{ token: string } | string> {
    const removed = await this.call('DELETE', `/api/v1/tokens/${encodeURIComponent(name)}`);
    if (typeof removed === 'string') return removed;
    if (removed.status !== 204 && removed.status !== 404) {
      return failure(`DELETE /api/v1/tokens/${name}`, removed.status, removed.text);
    }
    const created = await this.call('POST', '/api/v1/tokens', { name, scopes: ['read', 'write'] });
    if (typeof created === 'string') return created;
    if (created.status !== 201) return failure('POST /api/v1/tokens', created.status, created.text);
    const body = checkSchema(TokenCreateResponse, parseJsonOrUndefined(created.text));
    return body.ok ? { token: body.value.token } : `POST /api/v1/tokens: ${body.violation.message}`;
  }

  private async get<T extends TSchema>(path: string, schema: T): Promise<Static<T> | string> {
    const route = path.split('?')[0] ?? path;
    const response = await this.call('GET', path);
    if (typeof response === 'string') return response;
    if (response.status !== 200) return failure(`GET ${route}`, response.status, response.text);
    const body = checkSchema(schema, parseJsonOrUndefined(response.text));
    return body.ok ? body.value : `GET ${route}: ${body.violation.message}`;
  }

  /** One request with the token; a string says why none was made or answered. */
  private async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<HttpResponse | string> {
    const sent = await this.companion.send(
      { method, path, ...(body === undefined ? {} : { body }) },
      { requireToken: true },
    );
    if (sent.kind === 'answered') return sent.response;
    if (sent.kind === 'not-sent') {
      return sent.reason === 'bad-url' ? 'no companion URL is set' : sent.message;
    }
    const error = sent.error;
    return `${sent.url} is unreachable (${error instanceof Error ? error.message : String(error)})`;
  }
}

function failure(what: string, status: number, text: string): string {
  return `${what} answered ${status}${errorSuffix(text)}`;
}

/** The settings' token line: `Token "laptop": read, write` (or why it is unknown). */
export function tokenLine(self: Static<typeof TokenSelfResponse> | string): string {
  if (typeof self === 'string') return `Token scopes unknown: ${self}.`;
  return `Token "${self.name}": ${self.scopes.join(', ')}`;
}

/** An entry as the view shows it: what happened, by whom, to which file, how it ended. */
export function describeAuditEntry(entry: AuditEntry): { what: string; detail: string } {
  const outcome =
    entry.outcome === 'ok'
      ? ''
      : entry.outcome === 'deduplicated'
        ? ' (repeat: nothing new written)'
        : entry.outcome === 'refused'
          ? ' (refused: missing scope)'
          : ` (failed${entry.error_code === null ? '' : `: ${entry.error_code}`})`;
  return {
    what: `${ACTION_LABELS[entry.action] ?? entry.action}${outcome}`,
    detail: `${entry.at.replace('T', ' ').slice(0, 16)} UTC · ${entry.client} · token "${entry.token}"`,
  };
}

const ACTION_LABELS: Record<string, string> = {
  'note.create': 'Note created',
  'reminder.create': 'Reminder created',
  'reminder.update': 'Reminder changed',
  'reminder.cancel': 'Reminder cancelled',
  'reminder.snooze': 'Reminder snoozed',
  'reminder.done': 'Reminder done',
  'file.ingest': 'File added',
  'memory.add': 'Memory added',
  'memory.remove': 'Memory removed',
  create_note: 'Note created (tool)',
  append_to_note: 'Note appended (tool)',
  create_reminder: 'Reminder created (tool)',
  snooze_reminder: 'Reminder snoozed (tool)',
  complete_reminder: 'Reminder done (tool)',
  remember: 'Memory added (tool)',
};

function errorSuffix(text: string): string {
  const message = errorBodyMessage(parseJsonOrUndefined(text));
  return message === undefined ? '' : `: ${message}`;
}
