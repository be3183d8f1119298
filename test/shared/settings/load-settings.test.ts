import { describe, expect, it } from 'vitest';
import { loadSettings, toStoredData } from '../../../shared/settings/load-settings';
import { CURRENT_SETTINGS_VERSION, defaultSettings } from '../../../shared/settings/cairn-settings';

const ZONE = 'Europe/Berlin';
const defaults = defaultSettings(ZONE);

describe('loadSettings: defaults', () => {
  it.each([
    ['null (fresh install)', null],
    ['undefined', undefined],
  ])('%s gives every default and no problem', (_name, raw) => {
    const loaded = loadSettings(raw, ZONE);
    expect(loaded.settings).toEqual(defaults);
    expect(loaded.problems).toEqual([]);
  });

  it('takes the timezone default from the system zone it is given', () => {
    expect(loadSettings(null, 'Asia/Kolkata').settings.timezone).toBe('Asia/Kolkata');
  });

  it('fills nested defaults key by key instead of replacing whole objects', () => {
    const loaded = loadSettings(
      {
        settingsVersion: 1,
        folders: { notes: 'Inbox' },
        reminders: { syntaxes: { tasks: false } },
        ollama: { chatModel: 'llama3.2' },
      },
      ZONE,
    );
    expect(loaded.problems).toEqual([]);
    expect(loaded.settings.folders).toEqual({ ...defaults.folders, notes: 'Inbox' });
    expect(loaded.settings.reminders.syntaxes).toEqual({
      cairn: true,
      reminderPlugin: true,
      tasks: false,
    });
    expect(loaded.settings.ollama).toEqual({ ...defaults.ollama, chatModel: 'llama3.2' });
  });

  it('names a chat provider it does not know and keeps Ollama', () => {
    const loaded = loadSettings({ settingsVersion: 1, chat: { provider: 'openai' } }, ZONE);
    expect(loaded.settings.chat.provider).toBe('ollama');
    expect(loaded.problems.map((problem) => problem.field)).toEqual(['chat.provider']);
  });

  it('never shares default objects between loads', () => {
    const first = loadSettings(null, ZONE).settings;
    first.search.excludeGlobs.push('Templates/**');
    first.folders.notes = 'Changed';
    const second = loadSettings(null, ZONE).settings;
    expect(second.search.excludeGlobs).toEqual([]);
    expect(second.folders.notes).toBe('Cairn/Notes');
  });

  it('keeps every valid value of a complete file unchanged', () => {
    const stored = {
      settingsVersion: 1,
      companion: { url: 'https://cairn.home.arpa:8443/base', token: 'abc123' },
      timezone: 'America/New_York',
      folders: { notes: 'N', reminders: 'R/Sub', chats: 'C', attachments: 'A' },
      embeddings: { provider: 'ollama', modelDownloadUrl: 'https://mirror.example.org/cairn' },
      ollama: {
        url: 'http://10.0.0.5:11434',
        chatModel: 'qwen2.5',
        embedModel: 'bge-m3',
        visionModel: 'qwen2.5vl',
        unsupportedClaims: 'remove',
      },
      chat: {
        provider: 'openai-compatible',
        openAiUrl: 'http://10.0.0.5:1234/v1',
        openAiModel: 'qwen2.5-7b-instruct',
        openAiKey: 'sk-local',
      },
      reminders: { syntaxes: { cairn: true, reminderPlugin: false, tasks: false } },
      search: {
        excludeGlobs: ['Templates/**', '*.excalidraw.md'],
        delegateToCompanionOnMobile: false,
      },
      privacy: { offlineMode: false },
      chatTools: { permissions: { create_note: 'ask', forget: 'deny' }, disabled: ['recall'] },
      sync: {
        enabled: true,
        deviceName: 'Pixel 8',
        excludedFolders: ['Archive', 'Media/Big'],
        settingsCategories: ['appearance', 'hotkeys'],
        downloadOnOpenAboveMB: 10,
      },
    };
    const loaded = loadSettings(stored, ZONE);
    expect(loaded.problems).toEqual([]);
    expect(loaded.settings).toEqual(stored);
  });
});

describe('loadSettings: a wrong field falls back to its default and is reported by path', () => {
  it.each([
    ['companion.url', { companion: { url: 42 } }, 'expected text, found number 42'],
    ['companion.url', { companion: { url: 'ftp://nas/x' } }, 'Only http:// and https://'],
    ['companion.url', { companion: { url: 'http://user:pw@nas:8787' } }, 'token field'],
    ['companion', { companion: 'http://nas:8787' }, 'expected an object, found text'],
    ['timezone', { timezone: 'Mars/Olympus' }, 'not an IANA time zone'],
    ['sync.downloadOnOpenAboveMB', { sync: { downloadOnOpenAboveMB: -1 } }, 'from 0 to 100000'],
    ['timezone', { timezone: ['Europe/Berlin'] }, 'found a list'],
    ['folders.notes', { folders: { notes: '../outside' } }, 'must stay inside the vault'],
    ['folders.chats', { folders: { chats: '.obsidian/chats' } }, 'hidden folder'],
    ['folders.reminders', { folders: { reminders: '' } }, 'Enter a folder'],
    ['sync.deviceName', { sync: { deviceName: 'server' } }, 'the companion'],
    ['sync.enabled', { sync: { enabled: 'yes' } }, 'expected true or false'],
    [
      'embeddings.provider',
      { embeddings: { provider: 'openai' } },
      'expected one of "companion", "ollama", "builtin", "none"',
    ],
    [
      'embeddings.modelDownloadUrl',
      { embeddings: { modelDownloadUrl: 'http://example.org/models' } },
      'Model download URL: use https:// for example.org',
    ],
    [
      'embeddings.modelDownloadUrl',
      { embeddings: { modelDownloadUrl: 'ftp://nas/models' } },
      'Model download URL: Only http:// and https://',
    ],
    ['ollama.url', { ollama: { url: '' } }, 'Enter a URL'],
    [
      'reminders.syntaxes.tasks',
      { reminders: { syntaxes: { tasks: 'yes' } } },
      'expected true or false, found text "yes"',
    ],
    ['reminders.syntaxes', { reminders: { syntaxes: null } }, 'expected an object, found null'],
    [
      'search.excludeGlobs',
      { search: { excludeGlobs: 'Templates/**' } },
      'expected a list of text',
    ],
    ['privacy.offlineMode', { privacy: { offlineMode: 0 } }, 'found number 0'],
    ['settingsVersion', { settingsVersion: '1' }, 'expected a whole number'],
  ])('%s: %j', (field, raw, message) => {
    const loaded = loadSettings({ settingsVersion: 1, ...raw }, ZONE);
    const problem = loaded.problems.find((candidate) => candidate.field === field);
    expect(problem, JSON.stringify(loaded.problems)).toBeDefined();
    expect(problem?.message).toContain(message);
  });

  it('keeps the other fields when one is wrong', () => {
    const loaded = loadSettings(
      {
        settingsVersion: 1,
        companion: { url: 7, token: 'tok' },
        folders: { notes: 'Inbox', chats: 3 },
      },
      ZONE,
    );
    expect(loaded.settings.companion).toEqual({ url: '', token: 'tok' });
    expect(loaded.settings.folders).toEqual({ ...defaults.folders, notes: 'Inbox' });
    expect(loaded.problems.map((problem) => problem.field)).toEqual([
      'companion.url',
      'folders.chats',
    ]);
  });

  it('drops only the bad entries of a list, naming their index', () => {
    const loaded = loadSettings(
      {
        settingsVersion: 1,
        search: { excludeGlobs: ['Templates/**', 5, '  ', null, 'Archive/**'] },
      },
      ZONE,
    );
    expect(loaded.settings.search.excludeGlobs).toEqual(['Templates/**', 'Archive/**']);
    expect(loaded.problems.map((problem) => problem.field)).toEqual([
      'search.excludeGlobs[1]',
      'search.excludeGlobs[3]',
    ]);
  });

  it.each([
    ['a string', 'not json settings'],
    ['a number', 3],
    ['a list', [1, 2]],
  ])('a file that is %s gives all defaults and one problem', (_name, raw) => {
    const loaded = loadSettings(raw, ZONE);
    expect(loaded.settings).toEqual(defaults);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]?.field).toBe('(file)');
  });

  it('normalises what it keeps: trailing slash, missing scheme, folder slashes, token whitespace', () => {
    const loaded = loadSettings(
      {
        settingsVersion: 1,
        companion: { url: '192.168.1.20:8787/', token: '  tok\n' },
        folders: { notes: '/Inbox//Cairn/' },
      },
      ZONE,
    );
    expect(loaded.problems).toEqual([]);
    expect(loaded.settings.companion).toEqual({ url: 'http://192.168.1.20:8787', token: 'tok' });
    expect(loaded.settings.folders.notes).toBe('Inbox/Cairn');
  });
});

describe('loadSettings: the system zone asked for lazily', () => {
  const counting = (zone: string) => {
    const asked = { count: 0 };
    const systemZone = () => {
      asked.count++;
      return zone;
    };
    return { asked, systemZone };
  };

  it('asks for the system zone only when timezone is first read, and only once', () => {
    const { asked, systemZone } = counting('Asia/Kolkata');
    const { settings } = loadSettings({ settingsVersion: 1 }, systemZone);
    expect(asked.count).toBe(0);
    expect(settings.timezone).toBe('Asia/Kolkata');
    expect(settings.timezone).toBe('Asia/Kolkata');
    expect(asked.count).toBe(1);
  });

  it('never asks when data.json holds a valid zone, or when the zone is set before a read', () => {
    const stored = counting('Asia/Kolkata');
    expect(loadSettings({ timezone: 'Asia/Tokyo' }, stored.systemZone).settings.timezone).toBe(
      'Asia/Tokyo',
    );
    const written = counting('Asia/Kolkata');
    const { settings } = loadSettings(null, written.systemZone);
    settings.timezone = 'Europe/Paris';
    expect(settings.timezone).toBe('Europe/Paris');
    expect(stored.asked.count + written.asked.count).toBe(0);
  });

  it('uses the system zone for an invalid stored zone and still reports it', () => {
    const { systemZone } = counting('Asia/Kolkata');
    const loaded = loadSettings({ settingsVersion: 1, timezone: 'Mars/Olympus' }, systemZone);
    expect(loaded.problems.map((problem) => problem.field)).toEqual(['timezone']);
    expect(loaded.settings.timezone).toBe('Asia/Kolkata');
  });

  it('saves, spreads and compares like settings built with the zone up front', () => {
    const { settings } = loadSettings(null, counting(ZONE).systemZone);
    expect(Object.keys(settings)).toEqual(Object.keys(defaults));
    expect({ ...settings }).toEqual(defaults);
    expect(JSON.parse(JSON.stringify(toStoredData(settings, null)))).toEqual(defaults);
  });
});

describe('loadSettings: versions', () => {
  it('migrates a v0 file (no settingsVersion) and reports the migration', () => {
    const loaded = loadSettings(
      { companionUrl: 'http://nas:8787', apiToken: 'secret', defaultTimezone: 'Asia/Tokyo' },
      ZONE,
    );
    expect(loaded.migrations).toHaveLength(1);
    expect(loaded.problems).toEqual([]);
    expect(loaded.settings.settingsVersion).toBe(CURRENT_SETTINGS_VERSION);
    expect(loaded.settings.companion).toEqual({ url: 'http://nas:8787', token: 'secret' });
    expect(loaded.settings.timezone).toBe('Asia/Tokyo');
  });

  it('reads a file from a newer Cairn without migrating or downgrading its version', () => {
    const loaded = loadSettings(
      { settingsVersion: 7, companion: { url: 'http://nas:8787' }, futureFeature: { on: true } },
      ZONE,
    );
    expect(loaded.migrations).toEqual([]);
    expect(loaded.settings.settingsVersion).toBe(7);
    expect(loaded.settings.companion.url).toBe('http://nas:8787');
    expect(loaded.problems.map((problem) => problem.field)).toEqual(['settingsVersion']);
    expect(loaded.problems[0]?.message).toContain('newer Cairn');
  });
});

describe('toStoredData', () => {
  it('keeps keys this version does not know, at the top level and inside known objects', () => {
    const previous = {
      settingsVersion: 1,
      futureFeature: { on: true },
      companion: { url: 'http://old:8787', pairedDevices: ['phone'] },
    };
    const { settings } = loadSettings(previous, ZONE);
    settings.companion.url = 'http://new:8787';
    const stored = toStoredData(settings, previous);
    expect(stored.futureFeature).toEqual({ on: true });
    expect(stored.companion).toEqual({
      url: 'http://new:8787',
      token: '',
      pairedDevices: ['phone'],
    });
    expect(loadSettings(stored, ZONE).settings).toEqual(settings);
  });

  it('replaces lists instead of merging them', () => {
    const previous = { settingsVersion: 1, search: { excludeGlobs: ['a/**', 'b/**'] } };
    const { settings } = loadSettings(previous, ZONE);
    settings.search.excludeGlobs = ['c/**'];
    expect(toStoredData(settings, previous).search).toEqual({
      excludeGlobs: ['c/**'],
      delegateToCompanionOnMobile: true,
    });
  });
});

describe('loadSettings: which fields the file set', () => {
  it('names exactly the fields taken from the file, not the defaulted or refused ones', () => {
    const { fromFile } = loadSettings(
      {
        settingsVersion: 1,
        timezone: 'Mars/Olympus',
        folders: { notes: 'Inbox', chats: 3 },
        search: { excludeGlobs: ['Private/**'] },
        reminders: { syntaxes: { tasks: false } },
      },
      ZONE,
    );
    expect([...fromFile].sort()).toEqual([
      'folders.notes',
      'reminders.syntaxes.tasks',
      'search.excludeGlobs',
    ]);
  });

  it('is empty for a fresh install and for a file that is not an object', () => {
    expect(loadSettings(null, ZONE).fromFile.size).toBe(0);
    expect(loadSettings([1, 2], ZONE).fromFile.size).toBe(0);
  });

  it('counts a field a migration moved into place', () => {
    expect(loadSettings({ defaultTimezone: 'Europe/Lisbon' }, ZONE).fromFile.has('timezone')).toBe(
      true,
    );
  });
});
