import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstMatch, highlightSegments } from '../../../plugin/search/highlight';
import { createSearchStatus } from '../../../plugin/search/search-status';
import type { SearchStatusStore } from '../../../plugin/search/search-status';
import type { VaultSearchHit, VaultSearchOptions } from '../../../plugin/search/vault-search';
import SearchPanel from '../../../plugin/search/ui/SearchPanel.svelte';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function hit(path: string, title: string, excerpt: string, line = 3): VaultSearchHit {
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

function readyStatus(): SearchStatusStore {
  const status = createSearchStatus();
  status.update({
    ready: true,
    mode: 'keyword',
    modeLabel: 'keyword only (embeddings are off in settings)',
    progress: '',
  });
  return status;
}

function renderPanel(
  search: (q: string, o: VaultSearchOptions) => Promise<VaultSearchHit[]>,
  status: SearchStatusStore = readyStatus(),
) {
  const onOpen = vi.fn();
  const onHover = vi.fn();
  const view = render(SearchPanel, {
    props: { search, onOpen, onHover, status, debounceMs: 100 },
  });
  return {
    onOpen,
    onHover,
    view,
    status,
    input: screen.getByLabelText('Search query') as HTMLInputElement,
  };
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
    expect(onOpen).toHaveBeenCalledWith(hits[1], 'same');
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(onOpen).toHaveBeenLastCalledWith(hits[0], 'same');
  });

  it('leaves Enter and arrows to an IME composition, and tells screen readers the selection', async () => {
    vi.useFakeTimers();
    const hits = [hit('a.md', 'A', 'visa'), hit('b.md', 'B', 'fee')];
    const { onOpen, input, view } = renderPanel(async () => hits);
    await fireEvent.input(input, { target: { value: 'ビザ' } });
    await settle();
    await fireEvent.keyDown(input, { key: 'Enter', isComposing: true });
    await fireEvent.keyDown(input, { key: 'ArrowDown', isComposing: true });
    await fireEvent.keyDown(input, { key: 'Enter', keyCode: 229 });
    expect(onOpen).not.toHaveBeenCalled();
    const options = view.container.querySelectorAll('[role="option"]');
    expect(input.getAttribute('aria-activedescendant')).toBe(options[0]?.id);
    await fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(input.getAttribute('aria-activedescendant')).toBe(options[1]?.id);
    expect(options[1]?.id).not.toBe('');
    expect(input.getAttribute('aria-controls')).toBe(
      view.container.querySelector('[role="listbox"]')?.id,
    );
  });

  it('names the platform’s Mod key in the hints, and leaves hints out on touch devices', () => {
    const status = readyStatus();
    const mac = render(SearchPanel, {
      props: { search: async () => [], onOpen: vi.fn(), status, modKey: '⌘' },
    });
    expect(mac.container.querySelector('.cairn-search-keys')?.textContent).toContain('⌘ ↵');
    expect(mac.container.querySelector('.cairn-search-keys')?.textContent).not.toContain('Mod');
    cleanup();
    const phone = render(SearchPanel, {
      props: { search: async () => [], onOpen: vi.fn(), status, showKeys: false },
    });
    expect(phone.container.querySelector('.cairn-search-keys')).toBeNull();
  });

  it('Mod+Enter opens in a new tab, Shift+Enter in a split, Mod+click too', async () => {
    vi.useFakeTimers();
    const hits = [hit('a.md', 'A', 'visa'), hit('b.md', 'B', 'fee')];
    const { onOpen, input, view } = renderPanel(async () => hits);
    await fireEvent.input(input, { target: { value: 'visa' } });
    await settle();
    await fireEvent.keyDown(input, { key: 'Enter', metaKey: true });
    await fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    await fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    await fireEvent.click(view.container.querySelectorAll('.cairn-search-result')[1]!, {
      ctrlKey: true,
    });
    expect(onOpen.mock.calls).toEqual([
      [hits[0], 'tab'],
      [hits[0], 'tab'],
      [hits[0], 'split'],
      [hits[1], 'tab'],
    ]);
  });

  it('keeps the selected row in view and hands hovers to the page preview', async () => {
    vi.useFakeTimers();
    const hits = Array.from({ length: 5 }, (_, i) => hit(`n${i}.md`, `N${i}`, 'visa'));
    const scrolled: string[] = [];
    const original = HTMLElement.prototype.scrollIntoView;
    HTMLElement.prototype.scrollIntoView = function (this: HTMLElement) {
      scrolled.push(this.querySelector('.cairn-search-result-title')?.textContent ?? '');
    };
    try {
      const { input, view, onHover } = renderPanel(async () => hits);
      await fireEvent.input(input, { target: { value: 'visa' } });
      await settle();
      await fireEvent.keyDown(input, { key: 'ArrowUp' });
      await vi.advanceTimersByTimeAsync(0);
      expect(scrolled.at(-1)).toBe('N4');
      await fireEvent.keyDown(input, { key: 'ArrowDown' });
      await vi.advanceTimersByTimeAsync(0);
      expect(scrolled.at(-1)).toBe('N0');
      const third = view.container.querySelectorAll('.cairn-search-result')[2]!;
      await fireEvent.mouseEnter(third);
      expect(onHover).toHaveBeenCalledWith(expect.any(MouseEvent), hits[2]);
      expect(third.classList.contains('is-selected')).toBe(true);
    } finally {
      HTMLElement.prototype.scrollIntoView = original;
    }
  });

  it('shows the index state live and searches again when the index comes in', async () => {
    vi.useFakeTimers();
    const status = createSearchStatus();
    let ready = false;
    const search = vi.fn(async () => (ready ? [hit('a.md', 'A', 'visa')] : []));
    const { input, view } = renderPanel(search, status);
    expect(view.container.querySelector('.cairn-search-index')?.textContent).toBe(
      'Loading the index; results appear when it is in.',
    );
    await fireEvent.input(input, { target: { value: 'visa' } });
    await settle();
    expect(view.container.querySelector('.cairn-search-empty')).toBeNull();
    ready = true;
    status.update({
      ready: true,
      mode: 'hybrid',
      modeLabel: 'hybrid: keyword + use-lite',
      progress: 'Cairn: embedding 10/200',
    });
    await settle();
    expect(search).toHaveBeenCalledTimes(2);
    expect(view.container.querySelectorAll('.cairn-search-result').length).toBe(1);
    expect(view.container.querySelector('.cairn-search-mode')?.textContent).toBe(
      'hybrid: keyword + use-lite',
    );
    expect(view.container.querySelector('.cairn-search-index')?.textContent).toBe(
      'Cairn: embedding 10/200',
    );
    status.update({ unavailable: 'the search index could not start' });
    await settle();
    expect(view.container.querySelector('.cairn-search-index')?.textContent).toBe(
      'Search unavailable: the search index could not start',
    );
  });

  it('offers only the type filters the index can answer', () => {
    renderPanel(async () => []);
    const options = [...(screen.getByLabelText('Type filter') as HTMLSelectElement).options];
    expect(options.map((o) => o.value)).toEqual(['', 'note', 'reminder']);
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
    let release: (hits: VaultSearchHit[]) => void = () => {};
    const search = vi
      .fn<(q: string) => Promise<VaultSearchHit[]>>()
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

describe('firstMatch', () => {
  it('finds the first word of the cited lines matching a term, by the highlight rule', () => {
    const lines = ['# Visa rules', '', '## Fees', 'The fee is $50.'];
    const at = (line: number) => lines[line] ?? '';
    expect(firstMatch(at, 1, 3, ['fee'])).toEqual({ line: 2, from: 3, to: 7 });
    expect(firstMatch(at, 3, 3, ['fee', 'visa'])).toEqual({ line: 3, from: 4, to: 7 });
    expect(firstMatch(at, 1, 3, ['passport'])).toBeNull();
    expect(firstMatch(at, 0, 3, [])).toBeNull();
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
