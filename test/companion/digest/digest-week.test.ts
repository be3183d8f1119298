import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { DigestService } from '../../../companion/digest/digest-service';
import { DigestStore } from '../../../companion/digest/digest-store';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, TEST_TOKEN, authorized, testConfig } from '../helpers/app';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';

/*
 * A scripted week (issue #26 item 3): the sample vault indexed as `npm start` does (a copy, first
 * build), the companion first started on Friday 27 November 2026 with three unchecked
 * reminders already past, then a week's events through the real API, the vault and the index.
 * The W48 digest must say what happened: every section is checked.
 */

const BERLIN = 'Europe/Berlin';
const CALL_THE_BANK = '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13';
let index: IndexerFixture;
let source: VaultReminderSource;
let scheduler: ReminderScheduler;
let timer: ManualTimer;
let app: FastifyInstance;

beforeEach(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  await index.indexer.whenIdle();
  index.clock.set('2026-11-27T09:00:00Z'); // Friday 10:00 in Berlin: the first start
  source = new VaultReminderSource({ vault: index.vault, defaultZone: BERLIN });
  await source.load();
  timer = new ManualTimer(index.clock);
  scheduler = new ReminderScheduler({
    db: index.db,
    clock: index.clock,
    source,
    deliverer: new RecordingDeliverer(index.clock, ['phone']),
    graceMs: 24 * HOUR,
    timer,
  });
  await scheduler.start();
  app = await buildApp({
    config: testConfig(index.vault, join(index.dir, 'data')),
    db: index.db,
    clock: index.clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
  });
  app.addHook('onClose', () => undefined);
});
afterEach(async () => {
  await scheduler.stop();
  await app.close();
  await index.close();
});

const at = (iso: string) => timer.advanceTo(Date.parse(iso), () => scheduler.whenIdle());
const call = async (method: 'POST' | 'GET', url: string, payload?: object) => {
  const response = await app.inject({ method, url, headers: authorized, payload });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json<Record<string, unknown>>();
};
/** A change made in the vault by hand (Obsidian, sync): the index and scheduler hear of it. */
async function edit(path: string, change: (text: string) => string): Promise<void> {
  const file = join(index.vault, path);
  writeFileSync(file, change(readFileSync(file, 'utf8')));
  await index.indexer.refresh([path]);
  await index.indexer.whenIdle();
  await scheduler.replan(await source.refreshFile(path));
}

function section(text: string, heading: string): string {
  const start = text.indexOf(`## ${heading}`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 3);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

describe('the weekly digest counts what happened that week', () => {
  it('completions with their time, misses, and notes whose content changed', async () => {
    // Friday 11:00: the electricity bill (a Tasks line without a block id) is ticked by hand.
    await at('2026-11-27T10:00:00Z');
    await edit('Journal/2026-11-22.md', (text) =>
      text.replace('- [ ] Pay the electricity bill', '- [x] Pay the electricity bill'),
    );
    // Friday: a reminder set and, once it rang, marked done through the API (as the phone does).
    const rent = await call('POST', '/api/v1/reminders', {
      title: 'Pay rent',
      due: '2026-11-27T14:00',
    });
    await index.indexer.refresh([rent.path as string]);
    await at('2026-11-27T13:10:00Z');
    await call('POST', `/api/v1/reminders/${String(rent.id)}/done`, {});
    // Saturday 10:00: next Monday's "Call the bank" done ahead of time (one occurrence).
    await at('2026-11-28T09:00:00Z');
    await call('POST', `/api/v1/reminders/${CALL_THE_BANK}/done`, {});
    // Saturday: one note's words change, another is only touched, a new one is written.
    await edit('Projects/Reading list.md', (text) => `${text}\n- *The Timeless Way of Building*\n`);
    const garden = join(index.vault, 'Garden.md');
    utimesSync(garden, new Date(), new Date());
    await index.indexer.refresh(['Garden.md']);
    writeFileSync(join(index.vault, 'Ideas.md'), 'A shed for the bikes.\n');
    await index.indexer.refresh(['Ideas.md']);
    // Sunday: a note written through the API (front matter `created`).
    await at('2026-11-29T15:00:00Z');
    const note = await call('POST', '/api/v1/notes', { title: 'Shed plans', body: 'Wood.' });
    await index.indexer.refresh([note.path as string]);
    await index.indexer.whenIdle();

    // Monday 30 November 08:30: the W48 digest.
    await at('2026-11-30T07:30:00Z');
    const digests = new DigestService({
      vault: index.vault,
      folder: 'Cairn/Digests',
      zone: BERLIN,
      clock: index.clock,
      store: new DigestStore(index.db),
      sources: {
        notesSince: (since) => index.indexer.store.notesTouchedSince(since),
        reminders: () => source.all().reminders,
        completions: (from, to) => scheduler.completionsBetween(from, to),
        missed: async () =>
          (await scheduler.missed(0, 500)).items.flatMap((item) =>
            item.kind === 'expired' ? [item] : [],
          ),
      },
    });
    const written = await digests.writeOnDemand('2026-W48');
    const text = readFileSync(join(index.vault, written.path), 'utf8');

    expect(section(text, 'Notes created')).toBe(
      ['## Notes created', '### Cairn/Notes', '- [[Cairn/Notes/shed-plans|Shed plans]]'].join('\n'),
    );
    // Hashes, not mtimes: the copied sample and the touched Garden are not changes.
    expect(section(text, 'Notes changed')).toBe(
      [
        '## Notes changed',
        '### Vault root',
        '- [[Ideas]]',
        '### Journal',
        '- [[Journal/2026-11-22|Saturday, 22 November 2026]]',
        '### Projects',
        '- [[Projects/Reading list]]',
      ].join('\n'),
    );
    expect(section(text, 'Reminders done')).toBe(
      [
        '## Reminders done',
        '- [x] Fri 27 Nov 11:00 [[Journal/2026-11-22|Pay the electricity bill]]',
        '- [x] Fri 27 Nov 14:10 [[Cairn/Reminders/pay-rent|Pay rent]]',
        '- [x] Sat 28 Nov 10:00 [[Cairn/Reminders/call-the-bank|Call the bank]]',
      ].join('\n'),
    );
    // Passed before the companion's first start and never ticked: missed all the same.
    expect(section(text, 'Reminders missed')).toBe(
      [
        '## Reminders missed',
        '- Mon 23 Nov 17:00 [[Journal/2026-11-22#^r-7k2p|Call the bank about the card limit]]',
        '- Tue 24 Nov 12:00 [[Journal/2026-11-22|Pick up the parcel (Reminder plugin syntax, read only)]]',
      ].join('\n'),
    );
    // Monday's "Call the bank" was done ahead of time: not due.
    expect(section(text, 'Due next week (2026-W49)')).toBe(
      [
        '## Due next week (2026-W49)',
        '- Mon 30 Nov 09:00 [[Garden#^r-x81c|Water the plants]]',
        '- Mon 30 Nov 09:30 [[Projects/Companion setup#^r-m3n9|Standup notes]] (and 2 more)',
        '- Sat 5 Dec 12:00 [[Projects/Reading list#^r-l1b9|Return the library copy of A Pattern Language]]',
      ].join('\n'),
    );
  });
});
