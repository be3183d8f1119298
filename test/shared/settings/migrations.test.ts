import { describe, expect, it } from 'vitest';
import { migrateSettings, SETTINGS_MIGRATIONS } from '../../../shared/settings/migrations';
import type { SettingsMigration } from '../../../shared/settings/migrations';
import { CURRENT_SETTINGS_VERSION } from '../../../shared/settings/cairn-settings';

describe('settings migrations', () => {
  it('form an unbroken chain from 0 to the current version', () => {
    let at = 0;
    for (const migration of SETTINGS_MIGRATIONS) {
      expect(migration.from).toBe(at);
      expect(migration.to).toBe(at + 1);
      at = migration.to;
    }
    expect(at).toBe(CURRENT_SETTINGS_VERSION);
  });

  it.each([
    [
      'renames the flat v0 keys',
      { companionUrl: 'http://nas:8787', apiToken: 't', defaultTimezone: 'UTC', other: 1 },
      {
        settingsVersion: 1,
        companion: { url: 'http://nas:8787', token: 't' },
        timezone: 'UTC',
        other: 1,
      },
    ],
    [
      'lets keys already in the new place win',
      {
        companionUrl: 'http://old',
        companion: { url: 'http://new' },
        defaultTimezone: 'UTC',
        timezone: 'Asia/Tokyo',
      },
      { settingsVersion: 1, companion: { url: 'http://new' }, timezone: 'Asia/Tokyo' },
    ],
    ['adds nothing for an empty v0 file', {}, { settingsVersion: 1 }],
  ])('v0 → v1 %s', (_name, input, expected) => {
    const frozen = structuredClone(input);
    const result = migrateSettings(input, 0, 1);
    expect(result.data).toEqual(expected);
    expect(result.applied).toHaveLength(1);
    expect(input).toEqual(frozen);
  });

  it('runs nothing when already current', () => {
    const data = { settingsVersion: 1 };
    expect(migrateSettings(data, 1, 1)).toEqual({ data, applied: [] });
  });

  it('runs steps in order and fails loudly on a gap in the chain', () => {
    const steps: SettingsMigration[] = [
      { from: 0, to: 1, description: 'a', migrate: (d) => ({ ...d, trail: 'a' }) },
      {
        from: 1,
        to: 2,
        description: 'b',
        migrate: (d) => ({ ...d, trail: `${String(d.trail)}b` }),
      },
    ];
    expect(migrateSettings({}, 0, 2, steps)).toEqual({
      data: { trail: 'ab' },
      applied: ['a', 'b'],
    });
    expect(() => migrateSettings({}, 0, 3, steps)).toThrow('No settings migration from version 2');
  });
});
