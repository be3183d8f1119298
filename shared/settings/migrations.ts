/**
 * Versioned upgrades of stored settings. Each step takes the raw data.json object of one
 * version and returns the next version's; steps never read defaults or validate, that is
 * loadSettings' job, so a step stays a plain rename/reshape that is easy to test.
 */
import { isRecord } from '../protocol/json';

export type RawSettings = Record<string, unknown>;

export interface SettingsMigration {
  readonly from: number;
  readonly to: number;
  readonly description: string;
  migrate(data: RawSettings): RawSettings;
}

export const SETTINGS_MIGRATIONS: readonly SettingsMigration[] = [
  {
    from: 0,
    to: 1,
    description:
      'v0 → v1: flat keys companionUrl/apiToken/defaultTimezone became companion.url, companion.token and timezone',
    migrate(data) {
      const { companionUrl, apiToken, defaultTimezone, ...rest } = data;
      const companion = isRecord(rest.companion) ? { ...rest.companion } : {};
      // A key already present in the new place wins: it was written by a newer build.
      if (companionUrl !== undefined && companion.url === undefined) companion.url = companionUrl;
      if (apiToken !== undefined && companion.token === undefined) companion.token = apiToken;
      const next: RawSettings = { ...rest, settingsVersion: 1 };
      if (Object.keys(companion).length > 0) next.companion = companion;
      if (defaultTimezone !== undefined && rest.timezone === undefined) {
        next.timezone = defaultTimezone;
      }
      return next;
    },
  },
];

export interface MigrationResult {
  data: RawSettings;
  applied: string[];
}

/** Runs every step from `version` up to `target`, in order. */
export function migrateSettings(
  data: RawSettings,
  version: number,
  target: number,
  migrations: readonly SettingsMigration[] = SETTINGS_MIGRATIONS,
): MigrationResult {
  let current = data;
  let at = version;
  const applied: string[] = [];
  while (at < target) {
    const step = migrations.find((migration) => migration.from === at);
    if (!step) throw new Error(`No settings migration from version ${at} (target ${target}).`);
    current = step.migrate(current);
    applied.push(step.description);
    at = step.to;
  }
  return { data: current, applied };
}
