import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { highlightSegments } from '../../../plugin/search/highlight';
import type { SearchHit, VaultSearchOptions } from '../../../plugin/search/vault-search';
import SearchPanel from '../../../plugin/ui/SearchPanel.svelte';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function hit(path: string, title: string, excerpt: string, line = 3): SearchHit {
  return {
    citation: {
      type: 'note',
      path,
      title,
      excerpt,
      score: 0.9,
      heading: 'Fees',
      lines: [line, line + 2],
    },
    chunkId: `${path}#Fees#0`,
    terms: ['fee', 'visa'],
    mode: 'keyword',
  };
}

function renderPanel(search: (q: string, o: VaultSearchOptions) => Promise<SearchHit[]>) {
  const onOpen = vi.fn();
  const view = render(SearchPanel, {
    props: {
      search,
      onOpen,
      modeLabel: 'keyword only (embeddings are off in settings)',
      debounceMs: 100,
    },
  });
  return { onOpen, view, input: screen.getByLabelText('Search query') as HTMLInputElement };
}

async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(150);
}

describe('SearchPanel', () => {
  it('searches after typing stops, shows title, path, heading/line and highlighted excerpt', async () => {
    vi.useFakeTimers();
    const search = vi.fn(async () => [
      hit('Travel/Visa rules.md', 'Visa rules', 'The fee is $50 for a visa.'),
      hit('Reminders/bank.md', 'Call the bank', 'Ask about the card fee.', 7),
    ]);
    const { view, input } = renderPanel(search);
    await fireEvent.input(input, { target: { value: 'visa f' } });
    await fireEvent.input(input, { target: { value: 'visa fee' } });
    await settle();
    expect(search).toHaveBeenCalledTimes(1);
    expect(search).toHaveBeenCalledWith('visa fee', { limit: 20 });
    const items = view.container.querySelectorAll('.cairn-search-result');
    expect(items.length).toBe(2);
    expect(items[0]?.textContent).toContain('Visa rules');
    expect(items[0]?.textContent).toContain('Travel/Visa rules.md · Fees · line 3');
    expect([...items[0]!.querySelectorAll('mark')].map((m) => m.textContent)).toEqual([
      'fee',
      'visa',
    ]);
    expect(view.container.querySelector('.cairn-search-mode')?.textContent).toContain(
      'keyword only',
    );
  });

  it('arrow keys move the selection and Enter opens the selected hit', async () => {
    vi.useFakeTimers();
    const hits = [hit('a.md', 'A', 'visa'), hit('b.md', 'B', 'fee')];
    const { onOpen, input, view } = renderPanel(async () => hits);
    await fireEvent.input(input, { target: { value: 'visa' } });
    await settle();
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(view.container.querySelector('.is-selected')?.textContent).toContain('B');
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(onOpen).toHaveBeenCalledWith(hits[1]);
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(onOpen).toHaveBeenLastCalledWith(hits[0]);
  });

  it('passes folder, tag and type filters', async () => {
    vi.useFakeTimers();
    const search = vi.fn(async () => []);
    const { input } = renderPanel(search);
    await fireEvent.input(screen.getByLabelText('Folder filter'), {
      target: { value: ' Travel ' },
    });
    await fireEvent.input(screen.getByLabelText('Tag filter'), { target: { value: '#admin' } });
    const typeFilter = screen.getByLabelText('Type filter') as HTMLSelectElement;
    typeFilter.value = 'reminder';
    await fireEvent.change(typeFilter);
    await fireEvent.input(input, { target: { value: 'fee' } });
    await settle();
    expect(search).toHaveBeenLastCalledWith('fee', {
      limit: 20,
      folder: 'Travel',
      tag: '#admin',
      type: 'reminder',
    });
    expect(screen.getByText('No results for “fee”.')).toBeTruthy();
  });

  it('an answer that arrives after a newer one is ignored; a failure is shown', async () => {
    vi.useFakeTimers();
    let release: (hits: SearchHit[]) => void = () => {};
    const search = vi
      .fn<(q: string) => Promise<SearchHit[]>>()
      .mockImplementationOnce(() => new Promise((resolve) => (release = resolve)))
      .mockImplementationOnce(async () => [hit('new.md', 'New', 'visa')])
      .mockImplementationOnce(async () => {
        throw new Error('index closed');
      });
    const { input, view } = renderPanel(search);
    await fireEvent.input(input, { target: { value: 'old' } });
    await settle();
    await fireEvent.input(input, { target: { value: 'new' } });
    await settle();
    release([hit('old.md', 'Old', 'visa')]);
    await settle();
    expect(view.container.querySelector('.cairn-search-result')?.textContent).toContain('New');
    await fireEvent.input(input, { target: { value: 'boom' } });
    await settle();
    expect(screen.getByRole('alert').textContent).toBe('Search failed: index closed');
  });

  it('an empty query clears the results without searching', async () => {
    vi.useFakeTimers();
    const search = vi.fn(async () => [hit('a.md', 'A', 'visa')]);
    const { input, view } = renderPanel(search);
    await fireEvent.input(input, { target: { value: 'visa' } });
    await settle();
    await fireEvent.input(input, { target: { value: '   ' } });
    await settle();
    expect(search).toHaveBeenCalledTimes(1);
    expect(view.container.querySelectorAll('.cairn-search-result').length).toBe(0);
  });
});

describe('highlightSegments', () => {
  it('marks words matching terms by prefix or shared stem, keeps everything else', () => {
    const segments = highlightSegments('Embedding notes: plans for Planning.', [
      'embed',
      'planning',
    ]);
    expect(segments.map((s) => s.text).join('')).toBe('Embedding notes: plans for Planning.');
    expect(segments.filter((s) => s.match).map((s) => s.text)).toEqual([
      'Embedding',
      'plans',
      'Planning',
    ]);
    expect(highlightSegments('', ['x'])).toEqual([]);
    expect(highlightSegments('a an at', ['a'])).toEqual([
      { text: 'a', match: true },
      { text: ' an at', match: false },
    ]);
  });
});
