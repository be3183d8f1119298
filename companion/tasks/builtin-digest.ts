import { randomBytes } from 'node:crypto';
import type { DigestSchedule } from '../../shared/digest';
import { newNoteId } from '../../shared/markdown/note-id';
import type { Clock } from '../../shared/ports';
import { formatInZone } from '../../shared/reminders/local-time';
import { buildTaskFile, DEFAULT_TASKS_FOLDER } from '../../shared/tasks';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import { createVaultFile, VaultFileExistsError } from '../vault/atomic-write';
import type { VaultTaskSource } from './vault-task-source';

/** The file the weekly digest task is created as (the user may move or rename it). */
export const BUILTIN_DIGEST_PATH = `${DEFAULT_TASKS_FOLDER}/Weekly digest.md`;

/**
 * The key in `task_scheduler_meta` (migration 011) saying the weekly digest task was created
 * once; its value is when. The scheduler's own keys are `epoch` and `alive_at`.
 */
const SEEDED_KEY = 'builtin_digest_seeded';

const CRON_DAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];

/** `mon 08:00` (`--digest`) as the task's cron string: `0 8 * * MON`. */
export function digestCron(schedule: DigestSchedule): string {
  const hour = Math.floor(schedule.minute / 60);
  return `${schedule.minute % 60} ${hour} * * ${CRON_DAYS[schedule.weekday]}`;
}

export type SeedOutcome =
  /** The task file was written now. */
  | { readonly kind: 'created'; readonly path: string }
  /** Created on an earlier start: whatever the user did with it since (edit, move, delete) stands. */
  | { readonly kind: 'seeded-before' }
  /** A built-in digest task (or a file at its path) was already in the vault: kept as it is. */
  | { readonly kind: 'found'; readonly path: string };

/**
 * Creates the weekly digest task (`Cairn/Tasks/Weekly digest.md`, `builtin: digest`) the first
 * time the companion starts with digests on, and never again: the database records that it
 * did, so a user who deleted the file does not find it back on the next start, and one who
 * edited, moved or disabled it (`enabled: false`) keeps their version. A crash between the
 * write and the record is harmless: the next start finds the file and records it.
 */
export async function seedBuiltinDigest(options: {
  readonly vault: string;
  readonly db: SqliteDatabase;
  readonly source: VaultTaskSource;
  readonly schedule: DigestSchedule;
  readonly zone: string;
  readonly clock: Clock;
  readonly logger?: Logger;
}): Promise<SeedOutcome> {
  const { db, source, clock } = options;
  const seeded = db
    .prepare<[string], { value: number }>('SELECT value FROM task_scheduler_meta WHERE key = ?')
    .get(SEEDED_KEY);
  if (seeded !== undefined) return { kind: 'seeded-before' };
  const record = (): void => {
    db.prepare('INSERT OR IGNORE INTO task_scheduler_meta (key, value) VALUES (?, ?)').run(
      SEEDED_KEY,
      clock.now(),
    );
  };
  const present =
    source.tasks().find((task) => task.builtin === 'digest') ??
    source.invalid().find((file) => file.path === BUILTIN_DIGEST_PATH);
  if (present !== undefined) {
    record();
    return { kind: 'found', path: present.path };
  }
  const text = buildTaskFile({
    id: newNoteId(randomBytes),
    name: 'Weekly digest',
    scheduleText: digestCron(options.schedule),
    timezone: options.zone,
    enabled: true,
    action: 'digest',
    input: 'week',
    filters: {},
    deliver: ['note'],
    builtin: 'digest',
    created: formatInZone(clock.now(), options.zone),
  });
  try {
    await createVaultFile(options.vault, BUILTIN_DIGEST_PATH, text);
  } catch (error) {
    // The user's own note of that name: left as it is, and not offered again.
    if (!(error instanceof VaultFileExistsError)) throw error;
    record();
    return { kind: 'found', path: BUILTIN_DIGEST_PATH };
  }
  await source.refreshFile(BUILTIN_DIGEST_PATH);
  record();
  options.logger?.info({ path: BUILTIN_DIGEST_PATH }, 'the weekly digest task was created');
  return { kind: 'created', path: BUILTIN_DIGEST_PATH };
}
