import { setup, teardown } from 'obsidian-test-mocks/setup';
import { create as createQrCode } from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanionClient } from '../../../plugin/connection/client';
import type { HttpRequest, HttpTransport } from '../../../plugin/connection/http-transport';
import { pairingLink } from '../../../plugin/obsidian/pairing-link';
import { drawPairing } from '../../../plugin/obsidian/pairing-section';

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
