/**
 * A small Prometheus registry rendering the text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). Areas register what they
 * measure here: counters and histograms are updated as things happen, gauges are read at
 * scrape time from a callback (so the number is always the current truth, e.g. a row count).
 */

export type Labels = Readonly<Record<string, string>>;

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }

  histogram(
    name: string,
    help: string,
    buckets: readonly number[],
    labelNames: readonly string[] = [],
  ): Histogram {
    return this.add(new Histogram(name, help, buckets, labelNames));
  }

  /** A gauge read at scrape time. `collect` returns one value, or one per label set. */
  gauge(
    name: string,
    help: string,
    collect: () => number | ReadonlyArray<{ labels: Labels; value: number }>,
  ): void {
    this.add(new CallbackGauge(name, help, collect));
  }

  /** The whole registry in text format; metrics in registration order. */
  render(): string {
    const lines: string[] = [];
    for (const metric of this.metrics.values()) {
      lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`);
      lines.push(`# TYPE ${metric.name} ${metric.type}`);
      lines.push(...metric.render());
    }
    return `${lines.join('\n')}\n`;
  }

  private add<T extends Metric>(metric: T): T {
    if (!METRIC_NAME.test(metric.name))
      throw new Error(`metrics: invalid metric name "${metric.name}"`);
    if (this.metrics.has(metric.name))
      throw new Error(`metrics: "${metric.name}" is already registered`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}

export class Counter implements Metric {
  readonly type = 'counter';
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    checkLabelNames(name, labelNames);
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`metrics: ${this.name} can only increase (got ${by})`);
    const key = labelKey(this.name, this.labelNames, labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  render(): string[] {
    return [...this.values.values()].map(
      ({ labels, value }) => `${this.name}${formatLabels(labels)} ${formatNumber(value)}`,
    );
  }
}

export class Histogram implements Metric {
  readonly type = 'histogram';
  private readonly buckets: readonly number[];
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    private readonly labelNames: readonly string[],
  ) {
    checkLabelNames(name, labelNames);
    if (labelNames.includes('le'))
      throw new Error(`metrics: ${name}: "le" is reserved for buckets`);
    this.buckets = [...buckets].sort((a, b) => a - b);
    if (this.buckets.length === 0) throw new Error(`metrics: ${name} needs at least one bucket`);
  }

  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(this.name, this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound) entry.counts[index] = (entry.counts[index] ?? 0) + 1;
    });
    entry.sum += value;
    entry.count += 1;
  }

  render(): string[] {
    const lines: string[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, index) => {
        const le = { ...labels, le: formatNumber(bound) };
        lines.push(`${this.name}_bucket${formatLabels(le)} ${counts[index] ?? 0}`);
      });
      lines.push(`${this.name}_bucket${formatLabels({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${formatLabels(labels)} ${formatNumber(sum)}`);
      lines.push(`${this.name}_count${formatLabels(labels)} ${count}`);
    }
    return lines;
  }
}

class CallbackGauge implements Metric {
  readonly type = 'gauge';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect: () => number | ReadonlyArray<{ labels: Labels; value: number }>,
  ) {}

  render(): string[] {
    const collected = this.collect();
    const samples = typeof collected === 'number' ? [{ labels: {}, value: collected }] : collected;
    return samples.map(
      ({ labels, value }) => `${this.name}${formatLabels(labels)} ${formatNumber(value)}`,
    );
  }
}

function checkLabelNames(metric: string, labelNames: readonly string[]): void {
  for (const label of labelNames) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) {
      throw new Error(`metrics: ${metric}: invalid label name "${label}"`);
    }
  }
}

/** Label values must match the declared names exactly, so series stay consistent. */
function labelKey(metric: string, labelNames: readonly string[], labels: Labels): string {
  const given = Object.keys(labels);
  if (given.length !== labelNames.length || !labelNames.every((name) => name in labels)) {
    throw new Error(
      `metrics: ${metric} takes labels [${labelNames.join(', ')}], got [${given.join(', ')}]`,
    );
  }
  return labelNames.map((name) => `${name}=${labels[name]}`).join('\u0000');
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
