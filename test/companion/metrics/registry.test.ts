import { afterEach, describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../../companion/metrics/registry';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

describe('MetricsRegistry', () => {
  it('renders counters, gauges and histograms in text format 0.0.4', () => {
    const registry = new MetricsRegistry();
    const pushes = registry.counter('cairn_push_total', 'Push messages sent.', ['result']);
    registry.gauge('cairn_index_files', 'Files in the index.', () => 12);
    const lag = registry.histogram('cairn_fire_lag_seconds', 'Delay past due.', [1, 0.1, 10]);
    pushes.inc({ result: 'ok' });
    pushes.inc({ result: 'ok' }, 2);
    pushes.inc({ result: 'gone' });
    lag.observe(0.05);
    lag.observe(5);
    lag.observe(60);

    expect(registry.render()).toBe(
      [
        '# HELP cairn_push_total Push messages sent.',
        '# TYPE cairn_push_total counter',
        'cairn_push_total{result="ok"} 3',
        'cairn_push_total{result="gone"} 1',
        '# HELP cairn_index_files Files in the index.',
        '# TYPE cairn_index_files gauge',
        'cairn_index_files 12',
        '# HELP cairn_fire_lag_seconds Delay past due.',
        '# TYPE cairn_fire_lag_seconds histogram',
        'cairn_fire_lag_seconds_bucket{le="0.1"} 1',
        'cairn_fire_lag_seconds_bucket{le="1"} 1',
        'cairn_fire_lag_seconds_bucket{le="10"} 2',
        'cairn_fire_lag_seconds_bucket{le="+Inf"} 3',
        'cairn_fire_lag_seconds_sum 65.05',
        'cairn_fire_lag_seconds_count 3',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and help text', () => {
    const registry = new MetricsRegistry();
    registry.gauge('g', 'line one\nback\\slash', () => [
      { labels: { path: 'a "quoted"\\path\nnext' }, value: 1 },
    ]);
    expect(registry.render()).toContain('# HELP g line one\\nback\\\\slash');
    expect(registry.render()).toContain('g{path="a \\"quoted\\"\\\\path\\nnext"} 1');
  });

  it.each([
    [
      'an invalid metric name',
      (r: MetricsRegistry) => r.counter('bad-name', 'x'),
      /invalid metric name "bad-name"/,
    ],
    [
      'a duplicate',
      (r: MetricsRegistry) => {
        r.counter('dup', 'x');
        r.counter('dup', 'x');
      },
      /"dup" is already registered/,
    ],
    [
      'a reserved label',
      (r: MetricsRegistry) => r.counter('c', 'x', ['__name']),
      /invalid label name "__name"/,
    ],
    [
      '"le" on a histogram',
      (r: MetricsRegistry) => r.histogram('h', 'x', [1], ['le']),
      /"le" is reserved/,
    ],
    ['no buckets', (r: MetricsRegistry) => r.histogram('h', 'x', []), /at least one bucket/],
    [
      'wrong labels',
      (r: MetricsRegistry) => r.counter('c', 'x', ['a']).inc({ b: '1' }),
      /takes labels \[a\], got \[b\]/,
    ],
    [
      'a negative increment',
      (r: MetricsRegistry) => r.counter('c', 'x').inc({}, -1),
      /can only increase/,
    ],
  ])('refuses %s', (_case, act, message) => {
    expect(() => act(new MetricsRegistry())).toThrow(message);
  });
});

describe('GET /metrics', () => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });

  it('needs the token and reports memory plus per-route request counts', async () => {
    const registry = new MetricsRegistry();
    registry.gauge('cairn_index_files', 'Files in the index.', () => 7);
    t = await buildTestApp({ deps: { metrics: registry } });
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    await t.app.inject({ method: 'GET', url: '/health' });
    await t.app.inject({ method: 'GET', url: '/api/v1/status', headers: authorized });
    await t.app.inject({ method: 'GET', url: '/api/v1/nope/123', headers: authorized });

    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorized });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.body;
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toContain('cairn_index_files 7');
    expect(text).toContain(
      'cairn_http_requests_total{method="GET",route="/metrics",status="401"} 1',
    );
    expect(text).toContain(
      'cairn_http_requests_total{method="GET",route="/health",status="200"} 1',
    );
    expect(text).toContain(
      'cairn_http_requests_total{method="GET",route="/api/v1/status",status="200"} 1',
    );
    // Unmatched URLs share one label, so ids in paths cannot create unbounded series.
    expect(text).toContain(
      'cairn_http_requests_total{method="GET",route="unmatched",status="404"} 1',
    );
    expect(text).not.toContain('/api/v1/nope/123');
    expect(text).toMatch(
      /^cairn_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} 1$/m,
    );
  });
});
