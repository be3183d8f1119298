/**
 * The chat's ReminderReader and ReminderWriter over the paired companion's reminder API
 * (companion/README.md: `GET|POST /api/v1/reminders`, `GET|PATCH|DELETE /api/v1/reminders/:id`,
 * `POST …/:id/snooze`, `POST …/:id/done`), so a reminder set in the chat is scheduled by the
 * companion at once and the phone sees it. Answers are checked against the shared protocol
 * schemas; API errors become ChatPortErrors with the companion's message and field.
 *
 * When no answer arrives at all (network error, timeout, a proxy's 502/504) this throws
 * `CompanionUnreachableError`, which PairedReminders turns into a write into the vault. Every
 * other answer, a 4xx above all, is the companion's word and is shown as is.
 *
 * Undo goes through the API too: undo of create is `DELETE`, which the companion implements
 * as `status: cancelled` (the note stays, companion/README.md's least destructive stop); undo of
 * snooze/done is a `PATCH` back to the earlier status and time. Done or snooze of one
 * occurrence of a repeating reminder is delivery state the API cannot take back: CONFLICT.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  ChatPortError,
  type ReminderQuery,
  type ReminderReader,
  type ReminderWriter,
  type WriteNotice,
} from '../../../shared/chat/ports';
import type { Clock } from '../../../shared/ports';
import type { ToolErrorCode } from '../../../shared/protocol/errors';
import { MemoryReminderCreated, type MemoryItem } from '../../../shared/protocol/memories';
import {
  Reminder,
  ReminderListResponse,
  SNOOZE_MINUTES_MAX,
  type ReminderPatch,
} from '../../../shared/protocol/reminders';
import { checkSchema } from '../../../shared/protocol/validate';
import { CompanionClient } from '../../connection/client';
import type { CompanionEndpoint } from '../../connection/client';
import type { HttpRequest, HttpTransport } from '../../connection/http-transport';
import { checkHttpUrl, offlineModeViolation } from '../../../shared/settings/validation';
import { isRecord, parseJsonOrUndefined } from '../../../shared/protocol/json';

/** No answer came from the companion: the caller may fall back to the vault. */
export class CompanionUnreachableError extends Error {
  override readonly name = 'CompanionUnreachableError';
}

/** The API's page size ceiling (ReminderListQuery.limit). */
const LIST_LIMIT_MAX = 200;
/** A reverse proxy's "the companion behind me did not answer". */
const GATEWAY_STATUSES = new Set([502, 504]);
const MS_PER_MINUTE = 60_000;

export class CompanionReminders implements ReminderReader, ReminderWriter {
  /** Every request goes through the connection's client (plugin/connection/client.ts). */
  private readonly companion: CompanionClient;

  constructor(
    transport: HttpTransport,
    private readonly endpoint: () => CompanionEndpoint,
    private readonly clock: Clock,
  ) {
    this.companion = new CompanionClient(transport, endpoint);
  }

  /**
   * Whether the chat should go through the companion: a URL and a token are set and offline
   * mode allows the address. Reachability is learnt from each request.
   */
  isPaired(): boolean {
    const { url, token, offlineMode } = this.endpoint();
    if (url.trim() === '' || token.trim() === '') return false;
    const checked = checkHttpUrl(url);
    return checked.ok && offlineModeViolation(checked.url, offlineMode) === null;
  }

  async list(query: ReminderQuery): Promise<Reminder[]> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set('status', query.status);
    if (query.from !== undefined) params.set('from', query.from);
    if (query.to !== undefined) params.set('to', query.to);
    params.set('limit', String(Math.min(query.limit ?? 50, LIST_LIMIT_MAX)));
    const body = await this.call(
      { method: 'GET', path: `/api/v1/reminders?${params.toString()}` },
      ReminderListResponse,
    );
    return body.reminders;
  }

  async get(id: string): Promise<Reminder | undefined> {
    try {
      return await this.call({ method: 'GET', path: reminderPath(id) }, Reminder);
    } catch (error) {
      if (error instanceof ChatPortError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  async create(input: {
    title: string;
    due: string;
    timezone: string;
    repeat?: string;
    memory?: MemoryItem;
  }) {
    const body: Record<string, string> = {
      title: input.title,
      due: input.due.replace(' ', 'T'),
      timezone: input.timezone,
    };
    if (input.repeat !== undefined) body.repeat = input.repeat;
    if (input.memory !== undefined) {
      // The companion writes the link to the memory's line (docs/memory-digest-calendar.md).
      const path = `/api/v1/memories/${encodeURIComponent(input.memory.id)}/reminder`;
      const made = await this.call({ method: 'POST', path, body }, MemoryReminderCreated);
      return { ...made.reminder, deduplicated: made.deduplicated };
    }
    return this.call({ method: 'POST', path: '/api/v1/reminders', body }, Reminder);
  }

  snooze(id: string, minutes: number) {
    return this.call(
      { method: 'POST', path: `${reminderPath(id)}/snooze`, body: { minutes } },
      Reminder,
    );
  }

  complete(id: string) {
    return this.call({ method: 'POST', path: `${reminderPath(id)}/done`, body: {} }, Reminder);
  }

  async delete(id: string): Promise<WriteNotice> {
    await this.call({ method: 'DELETE', path: reminderPath(id) }, Reminder);
    return { notice: 'The companion cancelled it; the note stays, with status: cancelled.' };
  }

  async restore(previous: Reminder): Promise<void> {
    const current = await this.call({ method: 'GET', path: reminderPath(previous.id) }, Reminder);
    const patch: ReminderPatch = {};
    if (current.status !== previous.status) patch.status = previous.status;
    const snoozeChanged = (current.snoozed_until ?? null) !== (previous.snoozed_until ?? null);
    const dueChanged = Date.parse(current.due ?? '') !== Date.parse(previous.due ?? '');
    // Only a one-off is put back by time; it always has a due.
    if (previous.repeat === null && previous.due !== null && (snoozeChanged || dueChanged)) {
      // A new due clears the companion's snooze (and rewrites an inline token's time).
      patch.due = previous.due;
    }
    if (Object.keys(patch).length === 0) {
      if (previous.repeat !== null) {
        throw new ChatPortError(
          'CONFLICT',
          `"${previous.title}" repeats: the companion keeps done and snooze of one occurrence as delivery state, which cannot be taken back from here`,
          'id',
        );
      }
      return;
    }
    await this.call({ method: 'PATCH', path: reminderPath(previous.id), body: patch }, Reminder);
    const until =
      previous.snoozed_until === undefined || previous.snoozed_until === null
        ? Number.NaN
        : Date.parse(previous.snoozed_until);
    // The companion rounds a snooze up to the minute: whole minutes from now land on `until`.
    const minutes = Math.floor((until - this.clock.now()) / MS_PER_MINUTE);
    if (previous.repeat === null && minutes >= 1 && minutes <= SNOOZE_MINUTES_MAX) {
      await this.call(
        { method: 'POST', path: `${reminderPath(previous.id)}/snooze`, body: { minutes } },
        Reminder,
      );
    }
  }

  private async call<T extends TSchema>(
    request: { method: HttpRequest['method']; path: string; body?: unknown },
    schema: T,
  ): Promise<Static<T>> {
    const route = `${request.method} ${request.path.split('?')[0]}`;
    const sent = await this.companion.send(request);
    if (sent.kind === 'not-sent') {
      throw new ChatPortError(
        'UNAVAILABLE',
        sent.reason === 'bad-url' || sent.reason === 'no-url'
          ? `Companion URL: ${sent.message}`
          : sent.message,
      );
    }
    if (sent.kind === 'unreachable') {
      throw new CompanionUnreachableError(`${sent.url} did not answer (${describe(sent.error)})`);
    }
    const { response, url } = sent;
    if (GATEWAY_STATUSES.has(response.status)) {
      throw new CompanionUnreachableError(
        `${url} answered ${response.status}: the companion behind it did not answer`,
      );
    }
    const body = parseJsonOrUndefined(response.text);
    if (response.status < 200 || response.status >= 300) {
      throw apiError(route, response.status, body);
    }
    const checkedBody = checkSchema(schema, body);
    if (!checkedBody.ok) {
      throw new ChatPortError(
        'INTERNAL_ERROR',
        `the companion's answer to ${route} is not what the API promises: ${checkedBody.violation.message}`,
      );
    }
    return checkedBody.value;
  }
}

function reminderPath(id: string): string {
  return `/api/v1/reminders/${encodeURIComponent(id)}`;
}

/** The companion's error envelope as the chat tool error it maps to (tool codes are a subset). */
function apiError(route: string, status: number, body: unknown): ChatPortError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : {};
  const message = typeof error.message === 'string' ? error.message : `${route} answered ${status}`;
  const field = typeof error.field === 'string' ? error.field : undefined;
  if (status === 401) {
    return new ChatPortError(
      'UNAVAILABLE',
      'the companion rejected the token (401); copy it again into Cairn settings',
    );
  }
  const code: ToolErrorCode =
    status === 400 || status === 413 || status === 422
      ? 'VALIDATION_ERROR'
      : status === 404
        ? 'NOT_FOUND'
        : status === 409
          ? 'CONFLICT'
          : status === 429 || status === 503
            ? 'UNAVAILABLE'
            : 'INTERNAL_ERROR';
  return new ChatPortError(code, `companion: ${message}`, field);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
