import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { VaultIndexer } from '../../../companion/search/vault-indexer';
import { TaskFeature } from '../../../companion/tasks';
import type { TaskFeatureOptions } from '../../../companion/tasks';
import { ManualClock } from '../../fakes/clock';
import { tempDir } from '../helpers/app';
import { ManualTimer, RecordingDeliverer } from '../reminders/helpers';

export const ZONE = 'Europe/Berlin';

/** Notes the tasks answer from: real Markdown, indexed by the real indexer (keyword search). */
export const NOTES: Readonly<Record<string, string>> = {
  'Projects/House.md': [
    '---',
    'title: House project',
    'tags: [house]',
    '---',
    '# House project',
    '',
    '## Roof',
    'The new roof will be slate tiles from the quarry in Wales.',
    '',
    '## Windows',
    'Triple glazing was ordered for the north windows.',
    '',
  ].join('\n'),
  'Journal/2026-03-20.md': [
    '# 2026-03-20',
    '',
    'Invoice from the roofer #invoice: 4,200 EUR for the slate roof, due in April.',
    '',
  ].join('\n'),
  'Travel/Visa rules.md': [
    '# Visa rules',
    '',
    'For the visa appointment bring the passport, two photos and the printed form.',
    '',
  ].join('\n'),
};

export interface TaskWorld {
  readonly dir: string;
  readonly vault: string;
  readonly clock: ManualClock;
  readonly timer: ManualTimer;
  readonly push: RecordingDeliverer;
  readonly db: SqliteDatabase;
  readonly indexer: VaultIndexer;
  feature: TaskFeature;
  /** Builds a fresh TaskFeature on the same database (a restart). */
  restart(options?: Partial<TaskFeatureOptions>): Promise<TaskFeature>;
  /** Moves the clock to `iso`, running every timer due on the way. */
  advanceTo(iso: string): Promise<void>;
  read(path: string): string;
  write(path: string, text: string): void;
  close(): Promise<void>;
}

/** A vault with NOTES (and `files`), indexed, a database file, and a task feature on a manual clock. */
export async function taskWorld(
  startIso: string,
  files: Readonly<Record<string, string>> = {},
  options: Partial<TaskFeatureOptions> = {},
  { start = true }: { start?: boolean } = {},
): Promise<TaskWorld> {
  const temp = tempDir('tasks');
  const vault = join(temp.path, 'vault');
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(vault, path)), { recursive: true });
    writeFileSync(join(vault, path), text);
  };
  for (const [path, text] of Object.entries({ ...NOTES, ...files })) write(path, text);
  const clock = ManualClock.at(startIso);
  const timer = new ManualTimer(clock);
  const push = new RecordingDeliverer(clock, ['phone']);
  const db = openDatabase(join(temp.path, 'cairn.db'));
  const indexer = new VaultIndexer({
    vault,
    db,
    clock,
    logger: createLogger('silent'),
    watch: false,
  });
  await indexer.start();
  await indexer.whenIdle();
  const make = async (extra: Partial<TaskFeatureOptions> = {}): Promise<TaskFeature> => {
    const feature = new TaskFeature({
      vault,
      db,
      clock,
      defaultZone: ZONE,
      graceMs: 24 * 3_600_000,
      push,
      timer,
      ...options,
      ...extra,
    });
    feature.useSearch(() => new HybridSearch({ index: indexer.queries }));
    if (start) await feature.start();
    return feature;
  };
  const world: TaskWorld = {
    dir: temp.path,
    vault,
    clock,
    timer,
    push,
    db,
    indexer,
    feature: await make(),
    async restart(extra) {
      await world.feature.stop();
      start = true;
      world.feature = await make(extra);
      return world.feature;
    },
    async advanceTo(iso) {
      await timer.advanceTo(Date.parse(iso), () => world.feature.scheduler.whenIdle());
    },
    read: (path) => readFileSync(join(vault, path), 'utf8'),
    write,
    async close() {
      await world.feature.stop();
      await indexer.close();
      db.close();
      temp.remove();
    },
  };
  return world;
}

/** `## …` headings of a runs note, in order. */
export function entryHeadings(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('## '));
}
