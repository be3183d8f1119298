import { describe, expect, it } from 'vitest';
import {
  companionSource,
  MODEL_SIZE_TEXT,
  modelDownloadUrl,
  urlDownloadLabel,
  urlSource,
} from '../../../plugin/embeddings/model-download-source';
import { PROJECT_URL, releaseAssetsUrl } from '../../../plugin/release-info';
import { defaultSettings, type CairnSettings } from '../../../shared/settings/cairn-settings';

function settings(change: (settings: CairnSettings) => void = () => {}): CairnSettings {
  const built = defaultSettings('UTC');
  change(built);
  return built;
}

describe('where the built-in model downloads from', () => {
  it('defaults to the release assets of the plugin’s own version', () => {
    expect(releaseAssetsUrl('0.2.0')).toBe(`${PROJECT_URL}/releases/download/0.2.0/`);
    expect(modelDownloadUrl(settings(), '0.2.0')).toBe(
      'https://github.com/cairn-notes/cairn/releases/download/0.2.0/',
    );
    expect(
      modelDownloadUrl(
        settings((s) => (s.embeddings.modelDownloadUrl = 'http://nas.local/cairn')),
        '0.2.0',
      ),
    ).toBe('http://nas.local/cairn');
  });

  it('names the size and the host in the button’s text', () => {
    expect(MODEL_SIZE_TEXT).toBe('28 MB');
    expect(urlDownloadLabel(settings(), '0.1.0')).toBe(
      'Download the built-in model (28 MB) from github.com',
    );
    expect(
      urlDownloadLabel(
        settings((s) => (s.embeddings.modelDownloadUrl = 'http://192.168.1.20:8080/m')),
        '0.1.0',
      ),
    ).toBe('Download the built-in model (28 MB) from 192.168.1.20');
  });

  it('is blocked by offline mode (the default) for the public default host, saying what to do', () => {
    const blocked = urlSource(settings(), '0.1.0');
    expect(typeof blocked).toBe('string');
    expect(blocked).toContain('github.com looks like an internet host');
    expect(blocked).toContain('Settings → Cairn → Privacy and data');
    expect(blocked).toContain('set the model download URL');
  });

  it('downloads from the default host with offline mode off', () => {
    expect(
      urlSource(
        settings((s) => (s.privacy.offlineMode = false)),
        '0.1.0',
      ),
    ).toEqual({
      kind: 'url',
      baseUrl: 'https://github.com/cairn-notes/cairn/releases/download/0.1.0',
    });
  });

  it('allows a LAN URL in offline mode', () => {
    expect(
      urlSource(
        settings((s) => (s.embeddings.modelDownloadUrl = 'http://192.168.1.20:8080/cairn/')),
        '0.1.0',
      ),
    ).toEqual({ kind: 'url', baseUrl: 'http://192.168.1.20:8080/cairn' });
  });

  it('refuses an invalid URL naming the field', () => {
    expect(
      urlSource(
        settings((s) => {
          s.privacy.offlineMode = false;
          s.embeddings.modelDownloadUrl = 'http://mirror.example.org/cairn';
        }),
        '0.1.0',
      ),
    ).toContain('Model download URL: use https://');
  });

  it('takes the companion only when paired, and offline mode applies to it too', () => {
    expect(companionSource(settings())).toBe(
      'no companion is paired (Settings → Cairn → Companion)',
    );
    const paired = (url: string) =>
      settings((s) => {
        s.companion.url = url;
        s.companion.token = 'tok';
      });
    expect(companionSource(paired('http://nas:8787'))).toEqual({
      kind: 'companion',
      url: 'http://nas:8787',
      token: 'tok',
    });
    expect(companionSource(paired('https://cairn.example.org'))).toContain(
      'cairn.example.org looks like an internet host',
    );
  });
});
