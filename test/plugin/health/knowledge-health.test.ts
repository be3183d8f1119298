// @vitest-environment node
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanionClient } from '../../../plugin/connection/client';
import { NO_COMPANION, loadKnowledgeHealth } from '../../../plugin/health/knowledge-health';
import type { LoadedHealth } from '../../../plugin/health/knowledge-health';
import { buildTestApp, TEST_TOKEN } from '../../companion/helpers/app';
import type { TestApp } from '../../companion/helpers/app';
import { startIndexer } from '../../companion/search/helpers';
import type { IndexerFixture } from '../../companion/search/helpers';
import { InjectTransport } from '../../helpers/inject-transport';

/*
 * The knowledge health view's data against the real companion route over the real indexer:
 * a small vault where every note but one has tags and one note links to a note that is not there.
 */

let index: IndexerFixture;
let companion: TestApp;
const endpoint = { url: 'http://127.0.0.1:8787', token: TEST_TOKEN, offlineMode: true };

beforeAll(async () => {
  index = await startIndexer({
    files: {
      'Projects/Garden.md':
        '---\ntags: [home]\n---\n# Garden\n\nPlant the tomatoes after the last frost.\n',
      'Projects/Kitchen.md':
        '---\ntags: [home]\n---\n# Kitchen\n\nNew tiles; see [[Garden]] for the budget.\n',
      'Work/Roadmap.md': '---\ntags: [work]\n---\n# Roadmap\n\nShip the importer in March.\n',
      'Work/Standup.md':
        '---\ntags: [work, meeting]\n---\n# Standup\n\nBlocked on [[Vendor contract]].\n',
      'Inbox/Loose thought.md': 'Call the plumber about the leak before Friday.\n',
    },
  });
  await index.indexer.whenIdle();
  companion = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await companion?.close();
  await index?.close();
});

const sourceOf = (at = endpoint) => ({
  client: new CompanionClient(new InjectTransport(() => companion.app), () => at),
  companionUrl: () => at.url,
});

function section(loaded: LoadedHealth, id: string) {
  if (!loaded.ok) throw new Error(loaded.message);
  const found = loaded.groups.flatMap((group) => group.sections).find((s) => s.id === id);
  if (!found) throw new Error(`no section ${id}`);
  return found;
}

describe('the knowledge health view against the real companion route', () => {
  it('lists the untagged note and the broken link, each naming its note, with counts', async () => {
    const loaded = await loadKnowledgeHealth(sourceOf());
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.indexed).toBe(5);
    expect(loaded.groups.map((group) => group.heading)).toEqual([
      'Coverage',
      'Metadata hygiene',
      'Staleness',
    ]);
    expect(section(loaded, 'untagged').items.map((item) => item.path)).toEqual([
      'Inbox/Loose thought.md',
    ]);
    expect(section(loaded, 'broken_links').items).toEqual([
      {
        path: 'Work/Standup.md',
        title: 'Standup',
        reason: 'links to [[Vendor contract]], which no file is',
      },
    ]);
    expect(section(loaded, 'failed').items).toEqual([]);
    expect(section(loaded, 'empty').items).toEqual([]);
    // Nothing was asked and no reminder is due here: the staleness sections are there, empty.
    expect(section(loaded, 'often_cited').heading).toBe('Often cited, not updated in a year');
    expect(section(loaded, 'often_cited').items).toEqual([]);
    expect(section(loaded, 'overdue_reminders').items).toEqual([]);
    const total = loaded.groups
      .flatMap((group) => group.sections)
      .reduce((sum, s) => sum + s.items.length, 0);
    expect(loaded.problems).toBe(total);
    expect(loaded.problems).toBeGreaterThanOrEqual(2);
  });

  it('says clearly when no companion is configured, without calling it', async () => {
    const loaded = await loadKnowledgeHealth({
      client: {
        call: () => {
          throw new Error('must not be called');
        },
      },
      companionUrl: () => '  ',
    });
    expect(loaded).toEqual({ ok: false, message: NO_COMPANION });
  });

  it('a refused token is a sentence naming the status', async () => {
    const loaded = await loadKnowledgeHealth(sourceOf({ ...endpoint, token: 'nope' }));
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.message).toMatch(
      /^The companion could not report knowledge health: GET \/api\/v1\/health\/knowledge answered 401/,
    );
  });

  it('a companion still indexing says so, with the route’s reason', async () => {
    const bare = await buildTestApp();
    try {
      const loaded = await loadKnowledgeHealth({
        client: new CompanionClient(new InjectTransport(() => bare.app), () => endpoint),
        companionUrl: () => endpoint.url,
      });
      expect(loaded.ok).toBe(false);
      if (loaded.ok) return;
      expect(loaded.message).toMatch(/answered 503.*not available yet/);
    } finally {
      await bare.close();
    }
  });
});
