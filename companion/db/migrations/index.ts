import type { Migration } from '../migrate';
import { settingsTable } from './001-settings';
import { vaultIndex } from './002-vault-index';
import { pushTables } from './003-push';
import { reminderTables } from './004-reminders';
import { tokensAndAudit } from './007-tokens-audit';

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
  // Versions 5 and 6 belong to branches merged alongside this one (#11, #15); until they land,
  // these empty steps keep the list gap-free. MERGE: replace them with the real 005/006.
  { version: 5, name: 'reserved-005', up: '' },
  { version: 6, name: 'reserved-006', up: '' },
  tokensAndAudit,
];
