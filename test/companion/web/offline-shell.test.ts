import { describe, expect, it } from 'vitest';
import { shellPathOf } from '../../../companion/web/offline-shell';

describe('what the service worker answers from its offline shell', () => {
  const origin = 'https://cairn.example.net';

  it('takes the page and its files, and any navigation to the page', () => {
    for (const path of ['/app.js', '/styles.css', '/manifest.webmanifest', '/icons/icon-192.png']) {
      expect(shellPathOf({ method: 'GET', url: `${origin}${path}` }, origin)).toBe(path);
    }
    expect(
      shellPathOf({ method: 'GET', url: `${origin}/?from=home-screen`, mode: 'navigate' }, origin),
    ).toBe('/');
  });

  it('never touches the API, other methods or other origins', () => {
    expect(shellPathOf({ method: 'GET', url: `${origin}/api/v1/reminders` }, origin)).toBeNull();
    expect(shellPathOf({ method: 'POST', url: `${origin}/app.js` }, origin)).toBeNull();
    expect(shellPathOf({ method: 'GET', url: 'https://other.example/app.js' }, origin)).toBeNull();
    expect(shellPathOf({ method: 'GET', url: `${origin}/sw.js` }, origin)).toBeNull();
  });
});
