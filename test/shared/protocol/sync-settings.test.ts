import { describe, expect, it } from 'vitest';
import {
  neverSyncedSettingsReason,
  normalizeSettingsCategories,
  settingsCategoryOf,
  settingsFolderMayHold,
} from '../../../shared/protocol/sync-settings';

describe('settingsCategoryOf', () => {
  it.each([
    ['.obsidian/appearance.json', 'appearance'],
    ['.obsidian/themes/Minimal/theme.css', 'appearance'],
    ['.obsidian/snippets/wide.css', 'appearance'],
    ['.obsidian/hotkeys.json', 'hotkeys'],
    ['.obsidian/core-plugins.json', 'core-plugins'],
    ['.obsidian/daily-notes.json', 'core-plugins'],
    ['.obsidian/templates.json', 'core-plugins'],
    ['.obsidian/community-plugins.json', 'community-plugin-list'],
    ['.obsidian/plugins/dataview/main.js', 'community-plugins'],
    ['.obsidian/plugins/dataview/data.json', 'community-plugins'],
    ['.obsidian/app.json', 'other'],
    ['.obsidian/some-new-file.json', 'other'],
    // A conflict copy the companion made stays in its file's category.
    ['.obsidian/plugins/dataview/data.conflict-20261201-101500.json', 'community-plugins'],
  ])('%s is %s', (path, category) => {
    expect(settingsCategoryOf(path)).toBe(category);
  });

  it.each([
    ['.obsidian/workspace.json'],
    ['.obsidian/workspace-mobile.json'],
    ['.obsidian/workspaces.json'],
    ['.obsidian/plugins/cairn/data.json'],
    ['.obsidian/plugins/cairn/main.js'],
    ['.obsidian/plugins/Cairn/data.json'],
    ['.obsidian/plugins/dataview/.git/config'],
    ['.obsidian/plugins/dataview/node_modules/x/index.js'],
    ['.obsidian/plugins/dataview/cache/index.json'],
    ['.obsidian/.DS_Store'],
    ['.obsidian/app.json.tmp'],
    ['.obsidian/plugins/dataview'],
    ['.obsidian/plugins'],
    ['.obsidian/themes'],
    ['.obsidian'],
    ['.trash/old.md'],
    ['.git/config'],
    ['Notes/a.md'],
    ['.obsidian/../secret.md'],
    ['.obsidian//app.json'],
  ])('%s never syncs as a settings file', (path) => {
    expect(settingsCategoryOf(path)).toBeNull();
  });

  it('says why the never-list keeps a file out', () => {
    expect(neverSyncedSettingsReason('.obsidian/plugins/cairn/data.json')).toMatch(/token/);
    expect(neverSyncedSettingsReason('.obsidian/workspace.json')).toMatch(/tabs/);
    expect(neverSyncedSettingsReason('.obsidian/app.json')).toBeNull();
  });
});

describe('settingsFolderMayHold', () => {
  it('enters only folders that may hold files of the enabled categories', () => {
    const appearance = new Set(['appearance'] as const);
    expect(settingsFolderMayHold('.obsidian', appearance)).toBe(true);
    expect(settingsFolderMayHold('.obsidian', new Set())).toBe(false);
    expect(settingsFolderMayHold('.obsidian/themes', appearance)).toBe(true);
    expect(settingsFolderMayHold('.obsidian/plugins', appearance)).toBe(false);
    expect(settingsFolderMayHold('.obsidian/plugins')).toBe(true);
    expect(settingsFolderMayHold('.obsidian/plugins/dataview')).toBe(true);
    expect(settingsFolderMayHold('.obsidian/plugins/cairn')).toBe(false);
    expect(settingsFolderMayHold('.obsidian/plugins/dataview/node_modules')).toBe(false);
    expect(settingsFolderMayHold('.obsidian/plugins/dataview/.git')).toBe(false);
  });
});

describe('normalizeSettingsCategories', () => {
  it('keeps known names in the canonical order', () => {
    expect(normalizeSettingsCategories(['hotkeys', 'nope', 'appearance', 'hotkeys'])).toEqual([
      'appearance',
      'hotkeys',
    ]);
  });
});
