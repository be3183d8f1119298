import { App } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoriesModal } from '../../../../plugin/chat/obsidian/memories-modal';
import { VaultMemories } from '../../../../plugin/chat/vault-memories';
import { groupMemories, memoryCategoryCounts } from '../../../../plugin/chat/memory-list';
import { ManualClock } from '../../../fakes/clock';
import { MemoryVaultFiles } from '../memory-vault-files';

beforeAll(() => setup());
afterAll(() => teardown());

/* Command "Memories": the memory file's facts by category, narrowed by the picker. */

const MEMORY_FILE = [
  '---',
  'type: memory',
  '---',
  '# Memory',
  '',
  '- Great pizza at Mario’s on Main St #memory/food (added 2026-11-20) ^m-pz01',
  '- Need to watch Inception #memory/movies (added 2026-11-21) ^m-mv01',
  '- Ramen at Ichiran #memory/food (added 2026-11-22) ^m-rm01',
  '- Dentist is Dr Lee (added 2026-11-22) ^m-dn01',
  '',
].join('\n');

function memories() {
  const files = new MemoryVaultFiles();
  files.files.set('Cairn/Memory.md', MEMORY_FILE);
  return new VaultMemories({
    files,
    clock: ManualClock.at('2026-11-25T10:00:00Z'),
    zone: () => 'Europe/Berlin',
  });
}

describe('memory list by category', () => {
  it('groups in the fixed order, newest first, counting every category', async () => {
    const items = await memories().list();
    expect(
      groupMemories(items).map((group) => [group.label, group.memories.map((m) => m.id)]),
    ).toEqual([
      ['Food', ['m-rm01', 'm-pz01']],
      ['Movies', ['m-mv01']],
      ['People', ['m-dn01']],
    ]);
    expect(groupMemories(items, 'food').map((group) => group.category)).toEqual(['food']);
    expect(groupMemories(items, 'books')).toEqual([]);
    const counts = memoryCategoryCounts(items);
    expect(counts).toHaveLength(11);
    expect(counts.find((entry) => entry.category === 'food')?.count).toBe(2);
  });
});

describe('MemoriesModal', () => {
  it('lists every category, then narrows to the one picked, and opens a fact at its line', async () => {
    const app = App.createConfigured__({ files: {} });
    const modal = new MemoriesModal(app.asOriginalType__() as never, memories());
    await modal.load();
    const content = modal.contentEl;
    const headings = () =>
      [...content.querySelectorAll('.cairn-memories-heading')].map((h) => h.textContent);
    expect(headings()).toEqual(['Food', 'Movies', 'People']);
    const options = [...content.querySelectorAll('select option')].map((o) => o.textContent);
    expect(options).toEqual(['All (4)', 'Food (2)', 'Movies (1)', 'People (1)']);

    const values = [...content.querySelectorAll('select option')].map(
      (o) => (o as HTMLOptionElement).value,
    );
    expect(values).toEqual(['all', 'food', 'movies', 'people']);
    // What the picker's change does (the mocks' dropdown does not relay DOM change events).
    modal.show('movies');
    expect(headings()).toEqual(['Movies']);
    expect(
      [...content.querySelectorAll('.cairn-memories-item')].map(
        (li) => (li as HTMLElement).dataset.memory,
      ),
    ).toEqual(['m-mv01']);

    const open = vi.spyOn(app.workspace, 'openLinkText').mockResolvedValue(undefined as never);
    (content.querySelector('.cairn-memories-item a') as HTMLElement).click();
    expect(open).toHaveBeenCalledWith('Cairn/Memory.md', '', false, { eState: { line: 6 } });
  });

  it('opened on one category shows only it; an empty file says how to add one', async () => {
    const app = App.createConfigured__({ files: {} });
    const modal = new MemoriesModal(app.asOriginalType__() as never, memories(), 'food');
    await modal.load();
    expect(
      [...modal.contentEl.querySelectorAll('.cairn-memories-heading')].map((h) => h.textContent),
    ).toEqual(['Food']);
    const empty = new MemoriesModal(
      app.asOriginalType__() as never,
      new VaultMemories({
        files: new MemoryVaultFiles(),
        clock: ManualClock.at('2026-11-25T10:00:00Z'),
        zone: () => 'Europe/Berlin',
      }),
    );
    await empty.load();
    expect(empty.contentEl.textContent).toContain('No memories yet');
  });
});
