import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditClient, tokenLine } from '../../../plugin/audit/audit-client';
import { renderAuditList } from '../../../plugin/audit/audit-list';
import type { CompanionEndpoint } from '../../../plugin/connection/client';
import { TEST_TOKEN, buildTestApp } from '../../companion/helpers/app';
import type { TestApp } from '../../companion/helpers/app';
import { NodeHttpTransport } from '../../helpers/node-http-transport';

/*
 * The plugin's audit log and token line against the real companion (listening on 127.0.0.1).
 */

let companion: TestApp;
let endpoint: CompanionEndpoint;
const client = () => new AuditClient(new NodeHttpTransport(), () => endpoint);

// Obsidian's DOM helpers (createEl, empty, …) on the test DOM.
beforeAll(() => setup());
afterAll(() => teardown());

beforeEach(async () => {
  companion = await buildTestApp();
  const url = await companion.app.listen({ host: '127.0.0.1', port: 0 });
  endpoint = { url, token: TEST_TOKEN, offlineMode: true };
});
afterEach(() => companion.close());

async function writeNote(title: string): Promise<string> {
  // Node's HTTP, not the test DOM's fetch (which applies CORS to the companion's origin).
  const response = await new NodeHttpTransport().request({
    url: `${endpoint.url}/api/v1/notes`,
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
    body: JSON.stringify({ title, body: 'text' }),
  });
  return (JSON.parse(response.text) as { path: string }).path;
}

describe('AuditClient', () => {
  it('pages through the audit log and renders entries whose paths open their notes', async () => {
    const first = await writeNote('First');
    const second = await writeNote('Second');
    const page = await client().page(undefined, 1);
    if (typeof page === 'string') throw new Error(page);
    expect(page.entries.map((entry) => entry.path)).toEqual([second]);
    const older = await client().page(page.next!, 1);
    if (typeof older === 'string') throw new Error(older);
    expect(older.entries.map((entry) => entry.path)).toEqual([first]);

    const root = document.createElement('div');
    const opened: string[] = [];
    renderAuditList(root, {
      entries: [...page.entries, ...older.entries],
      next: null,
      problem: null,
      loading: false,
      onRefresh: () => undefined,
      onOlder: () => undefined,
      onOpen: (path) => opened.push(path),
    });
    const items = [...root.querySelectorAll('li')];
    expect(items.map((item) => item.firstElementChild?.textContent)).toEqual([
      'Note created',
      'Note created',
    ]);
    root
      .querySelector('a')
      ?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    expect(opened).toEqual([second]);
  });

  it('shows the token line, and says why when the companion refuses', async () => {
    expect(tokenLine(await client().tokenSelf())).toBe('Token "owner": read, write, admin, sync');
    endpoint.token = 'wrong-token-0000000000000000000';
    const refused = await client().page();
    expect(refused).toBe('GET /api/v1/audit answered 401: invalid token');
    expect(tokenLine(await client().tokenSelf())).toBe(
      'Token scopes unknown: GET /api/v1/tokens/self answered 401: invalid token.',
    );
  });

  it('makes a read+write phone token for pairing; pairing again revokes the previous one', async () => {
    const first = await client().pairingToken();
    if (typeof first === 'string') throw new Error(first);
    const asPhone = () =>
      new AuditClient(new NodeHttpTransport(), () => ({ ...endpoint, token: first.token }));
    expect(await asPhone().tokenSelf()).toEqual({ name: 'phone', scopes: ['read', 'write'] });
    // The phone may not read the audit log (admin).
    expect(await asPhone().page()).toMatch(
      /^GET \/api\/v1\/audit answered 403: .*needs the admin scope/,
    );
    const second = await client().pairingToken();
    if (typeof second === 'string') throw new Error(second);
    expect(second.token).not.toBe(first.token);
    expect(await asPhone().tokenSelf()).toBe('GET /api/v1/tokens/self answered 401: invalid token');
  });
});
