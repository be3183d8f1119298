import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFirstRunStore, firstRunCard } from '../../../plugin/search/first-run';
import type { FirstRunInputs } from '../../../plugin/search/first-run';
import FirstRunCard from '../../../plugin/search/ui/FirstRunCard.svelte';
import SearchPanel from '../../../plugin/search/ui/SearchPanel.svelte';
import { createSearchStatus } from '../../../plugin/search/search-status';

afterEach(() => cleanup());

const URL_LABEL = 'Download the built-in model (28 MB) from github.com';
const OFFLINE =
  'Offline mode allows only this device and your local network; github.com is on the internet.';

function inputs(change: Partial<FirstRunInputs> = {}): FirstRunInputs {
  return {
    provider: 'builtin',
    modelInstalled: false,
    dismissed: false,
    throughCompanion: false,
    notes: 1240,
    downloads: [{ route: 'url', label: URL_LABEL, blocked: null }],
    ...change,
  };
}

describe('firstRunCard', () => {
  it('asks only while the built-in model is chosen, missing and not dismissed', () => {
    expect(firstRunCard(inputs())).toEqual({ notes: 1240, downloads: inputs().downloads });
    expect(firstRunCard(inputs({ modelInstalled: true }))).toBeNull();
    expect(firstRunCard(inputs({ dismissed: true }))).toBeNull();
    expect(firstRunCard(inputs({ provider: 'ollama' }))).toBeNull();
    // A phone searching through the companion holds no model: nothing to download.
    expect(firstRunCard(inputs({ throughCompanion: true }))).toBeNull();
  });
});

describe('FirstRunCard', () => {
  it('says what Cairn is, what it found, and downloads in one step', async () => {
    const card = createFirstRunStore();
    card.set(firstRunCard(inputs()));
    let finish: (done: boolean) => void = () => undefined;
    const actions = {
      download: vi.fn(() => new Promise<boolean>((resolve) => (finish = resolve))),
      dismiss: vi.fn(),
      openSettings: vi.fn(),
    };
    render(FirstRunCard, { props: { card, actions } });
    expect(screen.getByText(/No setup is needed: keyword search works now/)).toBeTruthy();
    expect(screen.getByText('Found 1,240 notes in this vault.')).toBeTruthy();
    const button = screen.getByRole('button', { name: URL_LABEL });
    expect(button.classList.contains('mod-cta')).toBe(true);
    await fireEvent.click(button);
    expect(actions.download).toHaveBeenCalledWith('url');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/Downloading/)).toBeTruthy();
    finish(true);
    card.set(null);
    await vi.waitFor(() => expect(screen.queryByText(/Found 1,240/)).toBeNull());
  });

  it('offers the companion first when paired and says why a route is blocked', async () => {
    const card = createFirstRunStore();
    card.set(
      firstRunCard(
        inputs({
          downloads: [
            {
              route: 'companion',
              label: 'Download the built-in model from the companion',
              blocked: null,
            },
            { route: 'url', label: URL_LABEL, blocked: OFFLINE },
          ],
        }),
      ),
    );
    const actions = { download: vi.fn(), dismiss: vi.fn(), openSettings: vi.fn() };
    render(FirstRunCard, { props: { card, actions } });
    const buttons = screen.getAllByRole('button').map((el) => el.textContent);
    expect(buttons).toEqual([
      'Download the built-in model from the companion',
      URL_LABEL,
      'Not now',
      'Settings',
    ]);
    expect((screen.getByRole('button', { name: URL_LABEL }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect(screen.getByText(OFFLINE)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Not now' }));
    expect(actions.dismiss).toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    expect(actions.openSettings).toHaveBeenCalled();
  });

  it('does not dress a blocked download as the call to action', () => {
    const card = createFirstRunStore();
    card.set(
      firstRunCard(inputs({ downloads: [{ route: 'url', label: URL_LABEL, blocked: OFFLINE }] })),
    );
    render(FirstRunCard, {
      props: { card, actions: { download: vi.fn(), dismiss: vi.fn(), openSettings: vi.fn() } },
    });
    const button = screen.getByRole('button', { name: URL_LABEL }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.classList.contains('mod-cta')).toBe(false);
  });

  it('leaves the model to the card: the search mode line says only "keyword only"', () => {
    const card = createFirstRunStore();
    card.set(firstRunCard(inputs()));
    const status = createSearchStatus();
    const reason = 'keyword only (the built-in model is not installed: download it under Settings)';
    status.update({ ready: true, mode: 'keyword', modeLabel: reason });
    const firstRun = {
      card,
      actions: { download: vi.fn(), dismiss: vi.fn(), openSettings: vi.fn() },
    };
    const view = render(SearchPanel, {
      props: { search: async () => [], onOpen: vi.fn(), status, firstRun },
    });
    const mode = () => view.container.querySelector('.cairn-search-mode')?.textContent;
    expect(mode()).toBe('keyword only');
    card.set(null);
    return vi.waitFor(() => expect(mode()).toBe(reason));
  });
});
