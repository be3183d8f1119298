import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { writable } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RelatedNote } from '../../../../plugin/related/related-notes';
import type { RelatedViewState } from '../../../../plugin/related/related-view-state';
import RelatedNotes from '../../../../plugin/related/ui/RelatedNotes.svelte';

afterEach(cleanup);

const PESTS: RelatedNote = {
  path: 'Garden/Pest control.md',
  title: 'Pest control',
  score: 0.83,
  reasons: ['similar', 'linked-from'],
  sharedTags: ['garden'],
  section: { heading: 'Aphids', line: 5, excerpt: 'Spray neem oil in the evening.' },
};
const HIRING: RelatedNote = {
  path: 'Work/Hiring.md',
  title: 'Hiring',
  score: 0.27,
  reasons: ['links-to'],
  sharedTags: [],
};

function renderView(initial: RelatedViewState) {
  const state = writable(initial);
  const onOpen = vi.fn();
  const onHover = vi.fn();
  const onDragStart = vi.fn();
  const view = render(RelatedNotes, { props: { view: state, onOpen, onHover, onDragStart } });
  return { state, onOpen, onHover, onDragStart, view };
}

describe('RelatedNotes', () => {
  it('asks for a note when none is open, then follows the state as it changes', async () => {
    const { state, view } = renderView({ kind: 'no-note' });
    expect(screen.getByText('Open a note to see the notes related to it.')).toBeTruthy();
    state.set({
      kind: 'waiting',
      path: 'Garden/Tomatoes.md',
      title: 'Tomatoes',
      status: 'Cairn: loading index 250/1,000',
    });
    await Promise.resolve();
    expect(view.container.querySelector('.cairn-related-for')?.textContent).toBe('Tomatoes');
    expect(view.container.querySelector('.cairn-related-status')?.textContent).toBe(
      'Cairn: loading index 250/1,000',
    );
    state.set({
      kind: 'ready',
      path: 'Garden/Tomatoes.md',
      title: 'Tomatoes',
      notes: [PESTS, HIRING],
      status: 'By words and links only: keyword only (embeddings are off in settings)',
    });
    await Promise.resolve();
    const items = view.container.querySelectorAll('.cairn-related-item');
    expect(items.length).toBe(2);
    expect(items[0]?.querySelector('.cairn-related-title')?.textContent).toBe('Pest control');
    expect(items[0]?.querySelector('.cairn-related-score')?.textContent).toBe('83%');
    expect(items[0]?.querySelector('.cairn-related-heading')?.textContent).toBe('Aphids');
    expect(
      [...items[0]!.querySelectorAll('.cairn-related-reason')].map((e) => e.textContent),
    ).toEqual(['similar', 'links here']);
    expect(items[0]?.querySelector('.cairn-related-tag')?.textContent).toBe('#garden');
    expect(items[1]?.querySelector('.cairn-related-section')).toBeNull();
    expect(view.container.querySelector('.cairn-related-status')?.textContent).toContain(
      'By words and links only',
    );
  });

  it('opens on click (a new tab with Mod), previews on hover, drags a link', async () => {
    const { onOpen, onHover, onDragStart, view } = renderView({
      kind: 'ready',
      path: 'Garden/Tomatoes.md',
      title: 'Tomatoes',
      notes: [PESTS, HIRING],
      status: '',
    });
    const buttons = view.container.querySelectorAll<HTMLButtonElement>('.cairn-related-open');
    await fireEvent.click(buttons[0]!);
    await fireEvent.click(buttons[1]!, { ctrlKey: true });
    expect(onOpen.mock.calls).toEqual([
      [PESTS, false],
      [HIRING, true],
    ]);
    await fireEvent.mouseEnter(buttons[1]!);
    expect(onHover).toHaveBeenCalledWith(expect.any(MouseEvent), HIRING);
    expect(buttons[0]!.getAttribute('draggable')).toBe('true');
    await fireEvent.dragStart(buttons[0]!);
    expect(onDragStart).toHaveBeenCalledWith(expect.anything(), PESTS);
    expect(view.container.querySelector('.cairn-related-status')).toBeNull();
  });

  it('says when nothing related was found', () => {
    renderView({ kind: 'ready', path: 'a.md', title: 'a', notes: [], status: '' });
    expect(screen.getByText('Nothing related found yet.')).toBeTruthy();
  });
});
