import { setup, teardown } from 'obsidian-test-mocks/setup';
import { create as createQrCode } from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanionClient } from '../../../plugin/connection/client';
import type { HttpRequest, HttpTransport } from '../../../plugin/connection/http-transport';
import { pairingLink } from '../../../plugin/connection/obsidian/pairing-link';
import { drawPairing } from '../../../plugin/connection/obsidian/pairing-section';

beforeAll(() => setup());
afterAll(() => teardown());

describe('pairingLink', () => {
  it('puts the token in the fragment of the companion URL', () => {
    expect(pairingLink('http://192.168.1.20:8787/', ' tok-123 ')).toEqual({
      ok: true,
      link: 'http://192.168.1.20:8787/#token=tok-123',
    });
    expect(pairingLink('https://cairn.example.ts.net', 'a/b+c')).toEqual({
      ok: true,
      link: 'https://cairn.example.ts.net/#token=a%2Fb%2Bc',
    });
  });

  it('says what is missing or wrong', () => {
    expect(pairingLink('', 'x')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('URL'),
    });
    expect(pairingLink('ftp://host', 'x').ok).toBe(false);
    expect(pairingLink('http://host:8787', '  ')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('token'),
    });
    expect(pairingLink('http://host:8787', 'a b').ok).toBe(false);
  });
});

describe('drawPairing', () => {
  it('draws the QR code of the link as SVG modules and shows the link', () => {
    const container = document.createElement('div');
    drawPairing(container, {
      url: () => 'http://192.168.1.20:8787',
      token: () => 'tok-123',
      sendTestPush: () => Promise.resolve({ ok: true, message: 'sent' }),
    });
    const svg = container.querySelector('svg.cairn-pairing-qr');
    expect(svg).not.toBeNull();
    expect(container.querySelector('.cairn-pairing-link')?.textContent).toBe(
      'http://192.168.1.20:8787/#token=tok-123',
    );
    // The drawn squares are exactly the dark modules of the link's QR code.
    const modules = createQrCode('http://192.168.1.20:8787/#token=tok-123', {
      errorCorrectionLevel: 'M',
    }).modules;
    let dark = 0;
    for (let row = 0; row < modules.size; row++)
      for (let column = 0; column < modules.size; column++) if (modules.get(row, column)) dark++;
    const d = svg?.querySelector('path')?.getAttribute('d') ?? '';
    expect(d.split('M').length - 1).toBe(dark);
  });

  it('shows why there is no QR code when the token is missing', () => {
    const container = document.createElement('div');
    drawPairing(container, {
      url: () => 'http://192.168.1.20:8787',
      token: () => '',
      sendTestPush: () => Promise.resolve({ ok: true, message: 'sent' }),
    });
    expect(container.querySelector('svg')).toBeNull();
    expect(container.textContent).toContain('Set the companion token');
  });
});

describe('CompanionClient.sendTestPush', () => {
  function client(answer: (request: HttpRequest) => Promise<{ status: number; text: string }>) {
    const seen: HttpRequest[] = [];
    const transport: HttpTransport = {
      request: (request) => {
        seen.push(request);
        return answer(request);
      },
    };
    const instance = new CompanionClient(transport, () => ({
      url: 'http://127.0.0.1:8787',
      token: 'tok',
      offlineMode: true,
    }));
    return { instance, seen };
  }

  it('posts to /api/v1/push/test with the bearer token', async () => {
    const { instance, seen } = client(() => Promise.resolve({ status: 202, text: '{}' }));
    expect(await instance.sendTestPush()).toEqual({
      ok: true,
      message: 'Test notification sent to the paired phones.',
    });
    expect(seen).toEqual([
      {
        url: 'http://127.0.0.1:8787/api/v1/push/test',
        method: 'POST',
        headers: { Authorization: 'Bearer tok' },
        body: '{}',
      },
    ]);
  });

  it("reports the companion's error message and an unreachable server", async () => {
    const failing = client(() =>
      Promise.resolve({
        status: 409,
        text: JSON.stringify({ error: { code: 'CONFLICT', message: 'no phone is subscribed' } }),
      }),
    );
    const result = await failing.instance.sendTestPush();
    expect(result.ok).toBe(false);
    expect(result.message).toContain('409');
    expect(result.message).toContain('no phone is subscribed');
    const down = client(() => Promise.reject(new Error('ECONNREFUSED')));
    expect((await down.instance.sendTestPush()).message).toContain('ECONNREFUSED');
  });
});

describe('CompanionClient.companionReminders', () => {
  const reminder = {
    id: 'r-7k2p',
    title: 'Call the bank',
    due: '2026-11-23T17:00:00+01:00',
    timezone: 'Europe/Berlin',
    repeat: null,
    path: 'Daily.md',
    status: 'active',
    line: 3,
    next_fire: '2026-11-23T17:00:00+01:00',
  };

  function clientAnswering(answers: Record<string, unknown>) {
    const seen: string[] = [];
    const transport: HttpTransport = {
      request: (request) => {
        seen.push(request.url);
        const path = new URL(request.url).pathname;
        const body = answers[path];
        return Promise.resolve(
          body === undefined
            ? { status: 404, text: '{"error":{"code":"NOT_FOUND","message":"nope"}}' }
            : { status: 200, text: JSON.stringify(body) },
        );
      },
    };
    const instance = new CompanionClient(transport, () => ({
      url: 'http://127.0.0.1:8787',
      token: 'tok',
      offlineMode: true,
    }));
    return { instance, seen };
  }

  it('reads upcoming and missed reminders checked against the protocol', async () => {
    const { instance, seen } = clientAnswering({
      '/api/v1/reminders': { reminders: [reminder], next_cursor: null },
      '/api/v1/reminders/missed': {
        missed: [
          {
            reminder_id: 'r-x',
            title: 'Old',
            path: 'A.md',
            occurrence: null,
            reason: 'unresolved',
            detail: 'natural language',
          },
        ],
        next_cursor: null,
      },
    });
    const answer = await instance.companionReminders();
    expect(typeof answer).toBe('object');
    if (typeof answer === 'string') return;
    expect(answer.reminders.map((item) => item.title)).toEqual(['Call the bank']);
    expect(answer.missed.map((item) => item.reason)).toEqual(['unresolved']);
    expect(seen[0]).toBe('http://127.0.0.1:8787/api/v1/reminders?status=active&limit=100');
  });

  it('names the field when the companion answers something else', async () => {
    const { instance } = clientAnswering({
      '/api/v1/reminders': { reminders: [{ ...reminder, due: 'tomorrow' }], next_cursor: null },
    });
    const answer = await instance.companionReminders();
    expect(typeof answer).toBe('string');
    expect(answer).toMatch(/^GET \/api\/v1\/reminders: /);
    const missing = clientAnswering({
      '/api/v1/reminders': { reminders: [], next_cursor: null },
    });
    expect(await missing.instance.companionReminders()).toMatch(/404: nope/);
  });
});
