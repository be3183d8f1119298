import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Clock } from '../../../../shared/ports';
import {
  ReminderDoneRequest,
  ReminderSnoozeRequest,
} from '../../../../shared/protocol/reminder-actions';
import {
  ReminderCreate,
  ReminderPatch,
  type Reminder,
} from '../../../../shared/protocol/reminders';
import { checkSchema } from '../../../../shared/protocol/validate';
import { formatInZone, parseLocalDateTime, wallToInstant } from '../../../../shared/reminders';

interface Answer {
  status: number;
  body: unknown;
}

/**
 * A real HTTP server on 127.0.0.1 speaking the companion's reminder routes as companion/README.md and the
 * shared/protocol schemas document them (the plugin may not import the companion): bodies are
 * checked against the same schemas and refused with the error envelope naming the field; DELETE
 * cancels; snooze and done of a repeating reminder are delivery state (the view does not change).
 * `override` lets a test answer a route differently (a 502, a body off the schema).
 */
export class ReminderApiServer {
  readonly reminders = new Map<string, Reminder>();
  readonly seen: string[] = [];
  override: ((method: string, path: string) => Answer | undefined) | undefined;
  private server: Server | null = null;
  private nextId = 1;

  constructor(
    private readonly token: string,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<string> {
    const server = createServer((request, response) => void this.handle(request, response));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://localhost');
    this.seen.push(`${method} ${url.pathname}`);
    let answer: Answer;
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      answer = failure(401, 'UNAUTHORIZED', 'missing or wrong token');
    } else {
      answer =
        this.override?.(method, url.pathname) ??
        this.route(method, url, text === '' ? undefined : (JSON.parse(text) as unknown));
    }
    response.writeHead(answer.status, { 'Content-Type': 'application/json' });
    response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }

  private route(method: string, url: URL, body: unknown): Answer {
    const path = url.pathname;
    if (path === '/api/v1/reminders' && method === 'GET') {
      const status = url.searchParams.get('status');
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const reminders = [...this.reminders.values()]
        .filter((reminder) => status === null || reminder.status === status)
        .slice(0, limit);
      return { status: 200, body: { reminders, next_cursor: null } };
    }
    if (path === '/api/v1/reminders' && method === 'POST') {
      const parsed = checked(ReminderCreate, body);
      if (!parsed.ok) return parsed.answer;
      const input = parsed.value;
      const zone = input.timezone ?? 'UTC';
      const due = instantOf(input.due, zone);
      if (input.repeat === undefined && due < this.clock.now()) {
        return failure(422, 'UNPROCESSABLE', 'due is in the past', 'due');
      }
      const id = `companion-${this.nextId++}`;
      const reminder: Reminder = {
        id,
        title: input.title,
        due: formatInZone(due, zone),
        timezone: zone,
        repeat: input.repeat ?? null,
        path: `Reminders/${id}.md`,
        status: 'active',
        source: 'note',
        snoozed_until: null,
        next_fire: formatInZone(due, zone),
      };
      this.reminders.set(id, reminder);
      return { status: 201, body: reminder };
    }
    const match = /^\/api\/v1\/reminders\/([^/]+)(\/snooze|\/done)?$/.exec(path);
    const reminder = match ? this.reminders.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || reminder === undefined) return failure(404, 'NOT_FOUND', `nothing at ${path}`);
    const action = `${method} ${match[2] ?? ''}`;
    const save = (next: Reminder): Answer => {
      this.reminders.set(next.id, next);
      return { status: 200, body: next };
    };
    switch (action) {
      case 'GET ':
        return { status: 200, body: reminder };
      case 'DELETE ':
        return save({ ...reminder, status: 'cancelled', next_fire: null });
      case 'PATCH ': {
        const patch = checked(ReminderPatch, body);
        if (!patch.ok) return patch.answer;
        const change = patch.value;
        const next = { ...reminder };
        if (change.status !== undefined) next.status = change.status;
        if (change.due !== undefined) {
          next.due = formatInZone(instantOf(change.due, reminder.timezone), reminder.timezone);
          next.snoozed_until = null;
        }
        next.next_fire = next.status === 'active' ? (next.snoozed_until ?? next.due) : null;
        return save(next);
      }
      case 'POST /snooze': {
        const snooze = checked(ReminderSnoozeRequest, body);
        if (!snooze.ok) return snooze.answer;
        if (reminder.repeat !== null) return { status: 200, body: reminder };
        const until =
          Math.ceil((this.clock.now() + snooze.value.minutes * 60_000) / 60_000) * 60_000;
        const at = formatInZone(until, reminder.timezone);
        return save({ ...reminder, snoozed_until: at, next_fire: at });
      }
      case 'POST /done': {
        const done = checked(ReminderDoneRequest, body ?? null);
        if (!done.ok) return done.answer;
        if (reminder.repeat !== null) return { status: 200, body: reminder };
        return save({ ...reminder, status: 'done', next_fire: null });
      }
      default:
        return failure(404, 'NOT_FOUND', `no route ${method} ${path}`);
    }
  }
}

function checked<T extends TSchema>(
  schema: T,
  body: unknown,
): { ok: true; value: Static<T> } | { ok: false; answer: Answer } {
  const result = checkSchema(schema, body);
  if (result.ok) return result;
  const { message, field } = result.violation;
  return { ok: false, answer: failure(400, 'VALIDATION_ERROR', `${field} ${message}`, field) };
}

function failure(status: number, code: string, message: string, field?: string): Answer {
  return {
    status,
    body: { error: field === undefined ? { code, message } : { code, message, field } },
  };
}

function instantOf(due: string, zone: string): number {
  if (/(?:Z|[+-]\d{2}:\d{2})$/.test(due)) return Date.parse(due);
  const wall = parseLocalDateTime(due.replace(' ', 'T').slice(0, 16));
  if (!wall.ok) throw new Error(wall.message);
  return wallToInstant(wall.wall, zone);
}
