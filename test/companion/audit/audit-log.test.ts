import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_RETENTION_MS, AuditLog } from '../../../companion/audit/audit-log';
import { TokenStore } from '../../../companion/auth/token-store';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { ManualClock } from '../../fakes/clock';
import { TEST_TOKEN, authorized, buildIndexedTestApp, tempDir } from '../helpers/app';
import type { IndexedTestApp } from '../helpers/app';

describe('AuditLog', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: SqliteDatabase;
  let clock: ManualClock;
  beforeEach(() => {
    dir = tempDir('audit');
    db = openDatabase(join(dir.path, 'cairn.db'));
    clock = ManualClock.at('2026-11-22T10:00:00Z');
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it('pages newest first with an opaque cursor', () => {
    const log = new AuditLog(db, clock);
    for (let i = 1; i <= 5; i++) {
      log.record({ tokenName: 'owner', client: 'api', action: `a${i}`, outcome: 'ok' });
      clock.advance(1000);
    }
    const first = log.list({ limit: 2 });
    expect(first.entries.map((entry) => entry.action)).toEqual(['a5', 'a4']);
    const second = log.list({ limit: 2, cursor: first.next_cursor! });
    expect(second.entries.map((entry) => entry.action)).toEqual(['a3', 'a2']);
    const last = log.list({ limit: 2, cursor: second.next_cursor! });
    expect(last.entries.map((entry) => entry.action)).toEqual(['a1']);
    expect(last.next_cursor).toBeNull();
    expect(() => log.list({ limit: 2, cursor: 'zzz' })).toThrow(/not one this log handed out/);
  });

  it('keeps 90 days: older entries are pruned with the next write after an hour', () => {
    const log = new AuditLog(db, clock);
    log.record({ tokenName: 'owner', client: 'api', action: 'old', outcome: 'ok' });
    clock.advance(AUDIT_RETENTION_MS + 60 * 60 * 1000);
    log.record({ tokenName: 'owner', client: 'api', action: 'new', outcome: 'ok' });
    const count = db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number };
    expect(count.n).toBe(1);
    expect(log.list({ limit: 10 }).entries.map((entry) => entry.action)).toEqual(['new']);
  });
});

describe('audit of API writes and scopes', () => {
  let test: IndexedTestApp;
  beforeEach(async () => {
    test = await buildIndexedTestApp('audit-api');
  });
  afterEach(() => test.close());

  const auditList = async (headers = authorized) =>
    test.app.inject({ method: 'GET', url: '/api/v1/audit', headers });

  it('records a note written through the API by path, never its text, and the phone as phone', async () => {
    const created = await test.app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: { ...authorized, 'x-cairn-client': 'phone' },
      payload: { title: 'Secret plans', body: 'the body text stays out of the log' },
    });
    expect(created.statusCode).toBe(201);
    const response = await auditList();
    expect(response.statusCode).toBe(200);
    const [entry] = response.json<{ entries: Array<Record<string, unknown>> }>().entries;
    expect(entry).toMatchObject({
      token: 'owner',
      client: 'phone',
      action: 'note.create',
      path: created.json<{ path: string }>().path,
      outcome: 'ok',
      error_code: null,
      at: '2026-11-22T09:30:00.000Z',
    });
    expect(response.body).not.toContain('the body text');
    expect(response.body).not.toContain(TEST_TOKEN);
  });

  it('refuses a write to a read token with 403 naming the scope, and records the refusal', async () => {
    // A second connection to the app's database, as `cairn-companion token create` opens it.
    const cli = openDatabase(join(test.dir, 'cairn.db'));
    const { token } = new TokenStore(cli).create('reader', ['read'], 0);
    cli.close();
    const headers = { authorization: `Bearer ${token}` };
    const refused = await test.app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers,
      payload: { title: 'x', body: 'y' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: 'POST /api/v1/notes needs the write scope, which the token "reader" does not have',
      },
    });
    // Reading is fine; the audit log needs admin.
    expect(
      (await test.app.inject({ method: 'GET', url: '/api/v1/status', headers })).statusCode,
    ).toBe(200);
    expect((await auditList(headers)).statusCode).toBe(403);
    const [entry] = (await auditList()).json<{ entries: Array<Record<string, unknown>> }>().entries;
    expect(entry).toMatchObject({
      token: 'reader',
      action: 'note.create',
      outcome: 'refused',
      error_code: 'FORBIDDEN',
    });
  });

  it('GET /api/v1/tokens/self names the owner token with every scope', async () => {
    const self = await test.app.inject({
      method: 'GET',
      url: '/api/v1/tokens/self',
      headers: authorized,
    });
    expect(self.json()).toEqual({ name: 'owner', scopes: ['read', 'write', 'admin', 'sync'] });
  });
});
