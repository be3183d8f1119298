import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { chunkNote } from '../../../shared/search/chunk';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import type { SearchEngine } from '../../../plugin/search/search-engine';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';
import { rankRelated } from '../../../plugin/related/related-notes';
import type { LinkNeighbourhood, RelatedResult } from '../../../plugin/related/related-notes';
import { RelatedController } from '../../../plugin/related/related-controller';
import { FakeEmbedder } from '../search/fake-embedder';

const VAULT: Record<string, string> = {
  'Garden/Tomatoes.md':
    '---\ntags: [garden]\n---\n# Tomatoes\n\nTomatoes need full sun, deep watering and a stake.\n\n## Pests\n\nAphids and hornworms eat tomato leaves; neem oil helps.\n',
  'Garden/Peppers.md':
    '---\ntags: [garden]\n---\n# Peppers\n\nPeppers like full sun and steady watering, like tomatoes.\n',
  'Garden/Pest control.md':
    '# Pest control\n\nAphids on leaves: spray neem oil in the evening. Hornworms: pick by hand.\n',
  'Work/Budget.md': '---\ntags: [work]\n---\n# Budget\n\nQuarterly budget review with finance.\n',
  'Work/Hiring.md': '# Hiring\n\nInterview plan for the new engineer.\n',
};

function engineOf(embedder: FakeEmbedder | null): SearchEngine {
  const engine = createSearchEngine({ embedder, vectorRerank: Infinity });
  for (const [path, markdown] of Object.entries(VAULT)) {
    const input = noteInputFromMarkdown(path, markdown);
    if (!input.ok) throw new Error(input.problem.message);
    const chunks = chunkNote(input.input);
    engine.upsertNote(
      path,
      chunks,
      embedder
        ? (hash) => embedder.vectorOf(chunks.find((c) => c.textHash === hash)!.text)
        : undefined,
    );
  }
  return engine;
}

const NO_LINKS: LinkNeighbourhood = {
  outgoing: new Set(),
  incoming: new Set(),
  sharedTargets: new Map(),
};

const TAGS: Record<string, string[]> = {
  'Garden/Tomatoes.md': ['garden'],
  'Garden/Peppers.md': ['garden'],
  'Work/Budget.md': ['work'],
};

function rank(engine: SearchEngine, path: string, links = NO_LINKS): RelatedResult {
  return rankRelated({
    path,
    chunks: engine.relatedChunks(path, 60),
    links,
    tagsOf: (p) => TAGS[p] ?? [],
    titleOf: (p) => p.replace(/^.*\//, '').replace(/\.md$/, ''),
  });
}

describe('SearchEngine.relatedChunks', () => {
  it('finds other notes by the note’s own words and vectors, never the note itself', () => {
    const engine = engineOf(new FakeEmbedder());
    const chunks = engine.relatedChunks('Garden/Tomatoes.md', 10);
    expect(chunks.vector.length).toBeGreaterThan(0);
    expect(chunks.keyword.length).toBeGreaterThan(0);
    for (const item of [...chunks.vector, ...chunks.keyword])
      expect(item.path).not.toBe('Garden/Tomatoes.md');
    const keywordPaths = chunks.keyword.map((c) => c.path);
    expect(keywordPaths).toContain('Garden/Pest control.md');
    expect(keywordPaths).not.toContain('Work/Hiring.md');
  });

  it('has no vector side when keyword only, and nothing for a note not indexed', () => {
    const engine = engineOf(null);
    expect(engine.relatedChunks('Garden/Tomatoes.md', 10).vector).toEqual([]);
    const none = engine.relatedChunks('Nowhere.md', 10);
    expect([none.vector, none.keyword, none.cite('Garden/Tomatoes.md#x#0')]).toEqual([
      [],
      [],
      undefined,
    ]);
  });
});

describe('rankRelated', () => {
  it('ranks content-similar notes first and names the best matching section', () => {
    const result = rank(engineOf(new FakeEmbedder()), 'Garden/Tomatoes.md');
    expect(result.mode).toBe('hybrid');
    const paths = result.notes.map((n) => n.path);
    expect(paths.slice(0, 2).sort()).toEqual(['Garden/Peppers.md', 'Garden/Pest control.md']);
    expect(paths).not.toContain('Garden/Tomatoes.md');
    const pests = result.notes.find((n) => n.path === 'Garden/Pest control.md')!;
    expect(pests.reasons).toContain('similar');
    expect(pests.section?.excerpt).toContain('neem');
    // From the pest note, the tomato note's matching section is its "Pests" heading.
    const back = rank(engineOf(new FakeEmbedder()), 'Garden/Pest control.md');
    const tomatoes = back.notes.find((n) => n.path === 'Garden/Tomatoes.md')!;
    expect(tomatoes.section).toMatchObject({ heading: 'Pests', line: 8 });
    const peppers = result.notes.find((n) => n.path === 'Garden/Peppers.md')!;
    expect(peppers.sharedTags).toEqual(['garden']);
    expect(peppers.reasons).toContain('shared-tags');
    for (const note of result.notes) expect(note.score).toBeGreaterThan(0);
    expect([...result.notes].sort((a, b) => b.score - a.score)).toEqual(result.notes);
  });

  it('works keyword-only and says so', () => {
    const result = rank(engineOf(null), 'Garden/Tomatoes.md');
    expect(result.mode).toBe('keyword');
    expect(result.notes[0]?.path).toBe('Garden/Pest control.md');
  });

  it('brings in linked notes the text does not match, and ranks a link above no link', () => {
    const engine = engineOf(null);
    const links: LinkNeighbourhood = {
      outgoing: new Set(['Work/Hiring.md']),
      incoming: new Set(['Work/Budget.md']),
      sharedTargets: new Map([['Garden/Peppers.md', 1]]),
    };
    const result = rank(engine, 'Garden/Tomatoes.md', links);
    const hiring = result.notes.find((n) => n.path === 'Work/Hiring.md')!;
    expect(hiring.reasons).toEqual(['links-to']);
    expect(hiring.title).toBe('Hiring');
    expect(hiring.section).toBeUndefined();
    expect(result.notes.find((n) => n.path === 'Work/Budget.md')?.reasons).toEqual(['linked-from']);
    const peppers = result.notes.find((n) => n.path === 'Garden/Peppers.md')!;
    expect(peppers.reasons).toEqual(expect.arrayContaining(['shared-links', 'shared-tags']));
    const without = rank(engine, 'Garden/Tomatoes.md').notes.find(
      (n) => n.path === 'Garden/Peppers.md',
    )!;
    expect(peppers.score).toBeGreaterThan(without.score);
  });
});

describe('RelatedController', () => {
  function manualDefer() {
    const queue: Array<{ task: () => void; delayMs: number; cancelled: boolean }> = [];
    return {
      queue,
      defer: (task: () => void, delayMs: number) => {
        const entry = { task, delayMs, cancelled: false };
        queue.push(entry);
        return () => (entry.cancelled = true);
      },
      run: () => {
        for (const entry of queue.splice(0)) if (!entry.cancelled) entry.task();
      },
    };
  }

  it('ranks only the note the user stops on, waits for the index, and re-ranks on refresh', () => {
    const timers = manualDefer();
    const engine = engineOf(null);
    let ready = false;
    const computed: string[] = [];
    const controller = new RelatedController({
      compute: (path) => {
        computed.push(path);
        if (!ready) return null;
        return rank(engine, path);
      },
      titleOf: (path) => path,
      status: (result) => (result ? '' : 'loading'),
      defer: timers.defer,
    });
    expect(get(controller.state)).toEqual({ kind: 'no-note' });
    controller.show('Work/Budget.md');
    controller.show('Garden/Tomatoes.md');
    expect(timers.queue.map((e) => e.delayMs)).toEqual([120, 120]);
    timers.run();
    expect(computed).toEqual(['Garden/Tomatoes.md']);
    expect(get(controller.state)).toMatchObject({ kind: 'waiting', status: 'loading' });
    ready = true;
    controller.refresh();
    expect(timers.queue.at(-1)?.delayMs).toBe(0);
    timers.run();
    const state = get(controller.state);
    expect(state.kind).toBe('ready');
    if (state.kind === 'ready') expect(state.notes[0]?.path).toBe('Garden/Pest control.md');
    controller.show(null);
    timers.run();
    expect(get(controller.state)).toEqual({ kind: 'no-note' });
    controller.show('Work/Hiring.md');
    controller.dispose();
    expect(timers.queue.every((e) => e.cancelled)).toBe(true);
  });

  it('ranks nothing while no view is on screen, and the note shown once one comes back', () => {
    const timers = manualDefer();
    const engine = engineOf(null);
    let visible = false;
    const computed: string[] = [];
    const controller = new RelatedController({
      compute: (path) => {
        computed.push(path);
        return rank(engine, path);
      },
      titleOf: (path) => path,
      status: () => '',
      defer: timers.defer,
      visible: () => visible,
    });
    for (const path of ['Work/Budget.md', 'Garden/Tomatoes.md', 'Work/Hiring.md']) {
      controller.show(path);
      timers.run();
    }
    controller.refresh();
    timers.run();
    controller.shown();
    timers.run();
    expect(computed).toEqual([]);
    visible = true;
    controller.shown();
    timers.run();
    expect(computed).toEqual(['Work/Hiring.md']);
    expect(get(controller.state)).toMatchObject({ kind: 'ready', path: 'Work/Hiring.md' });
    // Shown again with nothing skipped meanwhile: no new ranking.
    controller.shown();
    timers.run();
    expect(computed).toHaveLength(1);
  });

  it('shows a companion answer for the note still active, never a late one for another', async () => {
    const timers = manualDefer();
    const engine = engineOf(null);
    const answers = new Map<string, (result: ReturnType<typeof rank>) => void>();
    const controller = new RelatedController({
      compute: (path) => new Promise((resolve) => answers.set(path, resolve)),
      titleOf: (path) => path,
      status: () => '',
      defer: timers.defer,
    });
    controller.show('Work/Budget.md');
    timers.run();
    controller.show('Garden/Tomatoes.md');
    timers.run();
    // The answer for the note left behind arrives last: it is dropped.
    answers.get('Garden/Tomatoes.md')!(rank(engine, 'Garden/Tomatoes.md'));
    answers.get('Work/Budget.md')!(rank(engine, 'Work/Budget.md'));
    await Promise.resolve();
    await Promise.resolve();
    expect(get(controller.state)).toMatchObject({ kind: 'ready', path: 'Garden/Tomatoes.md' });
  });
});
