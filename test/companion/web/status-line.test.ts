import { describe, expect, it } from 'vitest';
import { describeStatus } from '../../../companion/web/status-line';

const base = {
  version: '1.0.0',
  index: { files: 120, chunks: 400, pending: 0, failed: [], embedding: null },
  scheduler: { reminders: 3, next_fire: null },
  push: { subscriptions: 1 },
};

function withSemantic(semantic: unknown) {
  return { ...base, index: { ...base.index, semantic } };
}

describe('the phone status line', () => {
  it('counts notes and what waits to be indexed', () => {
    expect(describeStatus(base)).toBe('120 notes');
    expect(describeStatus({ ...base, index: { ...base.index, files: 1, pending: 4 } })).toBe(
      '1 note · indexing 4 more',
    );
  });

  it('says how far semantic search is, when the companion reports it', () => {
    const embedding = { state: 'embedding', provider: 'builtin', model: 'use-lite', dims: 512 };
    expect(describeStatus(withSemantic({ ...embedding, embedded: 40, total: 100 }))).toBe(
      '120 notes · Semantic search 40 % ready',
    );
    expect(describeStatus(withSemantic({ ...embedding, embedded: 0, total: 0 }))).toBe(
      '120 notes · Semantic search starting',
    );
    expect(describeStatus(withSemantic({ state: 'ready', embedded: 9, total: 9 }))).toBe(
      '120 notes · Semantic search ready',
    );
    expect(describeStatus(withSemantic({ state: 'off', reason: 'Ollama is not reachable' }))).toBe(
      '120 notes · Keyword search only: Ollama is not reachable',
    );
  });

  it('falls back quietly on older or odd answers', () => {
    expect(describeStatus(withSemantic({ state: 'something-new' }))).toBe('120 notes');
    expect(describeStatus(withSemantic('ready'))).toBe('120 notes');
    expect(describeStatus({})).toBe('0 notes');
    expect(describeStatus(null)).toBe('');
  });
});
