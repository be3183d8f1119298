import { describe, expect, it } from 'vitest';
import { endpointHost, endpointProblem } from '../../../companion/push/endpoint-policy';

describe('endpointProblem without an allowlist', () => {
  it.each([
    'https://fcm.googleapis.com/fcm/send/abc:def',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://web.push.apple.com/QGx',
    'https://wns2-par02p.notify.windows.com/w/?token=abc',
    'https://8.8.8.8/push',
    'https://[2001:4860:4860::8888]/push',
  ])('accepts %s', (endpoint) => {
    expect(endpointProblem(endpoint, [])).toBeNull();
  });

  it.each([
    ['http://fcm.googleapis.com/x', 'must be an https: URL'],
    ['ftp://fcm.googleapis.com/x', 'must be an https: URL'],
    ['not a url', 'is not a URL'],
    ['https://fcm.googleapis.com/x\u0000y', 'must not contain control characters'],
    ['https://fcm.googleapis.com/x\ty', 'must not contain control characters'],
    ['https://fcm.googleapis.com/x\u007f', 'must not contain control characters'],
    ['https://user:pw@fcm.googleapis.com/x', 'must not contain a user name or password'],
    ['https://127.0.0.1/x', 'loopback/private'],
    ['https://127.1/x', 'loopback/private'],
    ['https://0x7f000001/x', 'loopback/private'],
    ['https://10.1.2.3/x', 'loopback/private'],
    ['https://172.20.0.1/x', 'loopback/private'],
    ['https://192.168.178.1/x', 'loopback/private'],
    ['https://169.254.169.254/latest/meta-data', 'loopback/private'],
    ['https://100.100.1.1/x', 'loopback/private'],
    ['https://0.0.0.0/x', 'loopback/private'],
    ['https://[::1]/x', 'loopback/private'],
    ['https://[::]/x', 'loopback/private'],
    ['https://[::127.0.0.1]/x', 'loopback/private'],
    ['https://[::ffff:7f00:1]/x', 'loopback/private'],
    ['https://[fe80::1]/x', 'loopback/private'],
    ['https://[fd00::1]/x', 'loopback/private'],
    ['https://[::ffff:192.168.1.1]/x', 'loopback/private'],
    ['https://localhost/x', 'local name'],
    ['https://foo.localhost/x', 'local name'],
    ['https://nas.local/x', 'local name'],
    ['https://router/x', 'single-label'],
  ])('refuses %s', (endpoint, problem) => {
    expect(endpointProblem(endpoint, [])).toContain(problem);
  });
});

describe('endpointProblem with an allowlist', () => {
  const hosts = ['fcm.googleapis.com', '*.notify.windows.com', '127.0.0.1'];

  it.each([
    'https://fcm.googleapis.com/fcm/send/x',
    'https://FCM.googleapis.com/fcm/send/x',
    'https://wns2-par02p.notify.windows.com/w/',
    'https://a.b.notify.windows.com/w/',
    'https://127.0.0.1:8443/push/x',
  ])('accepts listed %s', (endpoint) => {
    expect(endpointProblem(endpoint, hosts)).toBeNull();
  });

  it.each([
    'https://updates.push.services.mozilla.com/x',
    'https://notify.windows.com/w/',
    'https://evilnotify.windows.com/w/',
    'https://fcm.googleapis.com.evil.example/x',
    'https://127.0.0.2/x',
  ])('refuses unlisted %s', (endpoint) => {
    expect(endpointProblem(endpoint, hosts)).toMatch(/not in the allowed push services/);
  });

  it('still requires https', () => {
    expect(endpointProblem('http://fcm.googleapis.com/x', hosts)).toBe('must be an https: URL');
  });
});

describe('endpointHost', () => {
  it('shows host and port only', () => {
    expect(endpointHost('https://fcm.googleapis.com/fcm/send/secret-token')).toBe(
      'fcm.googleapis.com',
    );
    expect(endpointHost('https://127.0.0.1:8443/push/secret')).toBe('127.0.0.1:8443');
    expect(endpointHost('nonsense')).toBe('invalid');
  });
});
