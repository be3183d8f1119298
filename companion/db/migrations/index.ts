import type { Migration } from '../migrate';
import { settingsTable } from './001-settings';
import { vaultIndex } from './002-vault-index';
import { pushTables } from './003-push';
import { reminderTables } from './004-reminders';
import { writeMemoryTable } from './005-write-memory';
import { tokensAndAudit } from './006-tokens-audit';
import { digestTables } from './007-digests';
import { vaultFiles } from './008-vault-files';
import { digestFacts } from './009-digest-facts';
import { syncTables } from './010-sync';
import { taskTables } from './011-tasks';
import { toolTables } from './012-tools';
import { sourceDates } from './013-source-dates';
import { decisionsTable } from './014-decisions';
import { tokenPaths } from './015-token-paths';
import { citationCounts } from './016-citation-counts';

/**
 * Every schema step of the companion database, oldest first.
 *
 * To add one: create `NNN-what-it-does.ts` next to this file exporting a `Migration` whose
 * `version` is the next number, and append it here. Never edit or reorder a released entry:
 * databases in the field already ran it. `openDatabase` applies whatever is new on start,
 * each step in its own transaction; test/companion/db/ checks the list has no gaps.
 */
export const migrations: readonly Migration[] = [
  settingsTable,
  vaultIndex,
  pushTables,
  reminderTables,
  writeMemoryTable,
  tokensAndAudit,
  digestTables,
  vaultFiles,
  digestFacts,
  syncTables,
  taskTables,
  toolTables,
  sourceDates,
  decisionsTable,
  tokenPaths,
  citationCounts,
];
