import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  foldText,
  languageFromTag,
  normaliseQuery,
  spaceUnspacedWords,
  stemWord,
  tokenize,
} from '../../../shared/search/index';

describe('case, accents and Unicode normal form do not matter', () => {
  const decomposed = 'Cafe\u0301 de\u0301ja\u0300 vu'; // NFD: accents as combining marks
  it.each([
    ['Café déjà vu', 'cafe deja vu'],
    [decomposed, 'cafe deja vu'],
    ['CAFÉ DÉJÀ VU', 'cafe deja vu'],
    ['Ｐｏｒｔｕｇａｌ', 'portugal'],
    ['Straße', 'straße'],
  ])('foldText(%j) = %j', (text, folded) => {
    expect(foldText(text)).toBe(folded);
  });

  it('gives one query for every spelling of the same question', () => {
    const spellings = [
      'how long can I stay in Portugal?',
      'how long can i stay in portugal?',
      'HOW LONG CAN I STAY IN PORTUGAL?',
    ];
    const queries = spellings.map((q) => normaliseQuery(q).terms);
    expect(new Set(queries.map((terms) => terms.join(' '))).size).toBe(1);
    expect(normaliseQuery('Où est le café ?').terms).toEqual(
      normaliseQuery('ou est le cafe\u0301 ?').terms,
    );
  });

  it('keeps the marks of scripts where they change the word (Japanese voicing)', () => {
    expect(foldText('が')).toBe('が');
    expect(foldText('か\u3099')).toBe('が'); // decomposed が composes back
    expect(tokenize('ｶﾞｲﾄﾞ')).toEqual(['ガイド']); // half-width katakana → full-width
  });
});

describe('word segmentation of unspaced scripts (Intl.Segmenter)', () => {
  it('splits Chinese into words', () => {
    expect(tokenize('如何同步我的笔记设置')).toEqual(['如何', '同步', '我的', '笔记', '设置']);
  });

  it('splits Japanese into words', () => {
    const words = tokenize('設定フォルダはどこにありますか');
    expect(words.slice(0, 2)).toEqual(['設定', 'フォルダ']);
    expect(words).toContain('どこ');
  });

  it('splits Thai into words', () => {
    const words = tokenize('การตั้งค่าของฉัน');
    expect(words.length).toBeGreaterThan(1);
    expect(words.join('')).toBe('การตั้งค่าของฉัน');
  });

  it('spaces the words of unspaced runs for a space-splitting engine, leaving Latin text alone', () => {
    expect(spaceUnspacedWords('Obsidian 同步设置 sync')).toBe('Obsidian 同步 设置 sync');
    expect(spaceUnspacedWords('Plain English text.')).toBe('Plain English text.');
  });
});

describe('language detection', () => {
  it.each([
    ['The vault is a folder on your computer where your notes are stored.', 'en'],
    ['Die Einstellungen werden in dem Ordner gespeichert, der sich im Tresor befindet.', 'de'],
    ['Les paramètres sont enregistrés dans le dossier de configuration de votre coffre.', 'fr'],
    ['Le impostazioni sono salvate nella cartella di configurazione del tuo vault.', 'it'],
    ['Obsidian 将设置保存在库的配置文件夹中。', 'zh'],
    ['Obsidian は設定を保管庫の設定フォルダに保存します。', 'ja'],
    ['설정은 보관함의 구성 폴더에 저장됩니다.', 'ko'],
  ])('%j is %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('does not guess on text too short to tell', () => {
    expect(detectLanguage('Obsidian Sync')).toBeUndefined();
  });

  it('reads front-matter lang tags', () => {
    expect(languageFromTag('de-CH')).toBe('de');
    expect(languageFromTag('zh-TW')).toBe('zh');
    expect(languageFromTag('nb')).toBe('no');
    expect(languageFromTag('tlh')).toBeUndefined();
  });
});

describe('stemming per language', () => {
  it('German: singular and plural meet', () => {
    expect(stemWord('einstellungen', 'de')).toBe(stemWord('einstellung', 'de'));
    expect(stemWord('ordnern', 'de')).toBe(stemWord('ordner', 'de'));
  });

  it('French: accents and plurals meet', () => {
    expect(stemWord(foldText('paramètres'), 'fr')).toBe(stemWord('parametre', 'fr'));
    expect(stemWord('synchronisations', 'fr')).toBe(stemWord('synchronisation', 'fr'));
  });

  it('leaves numbers, other scripts and unknown languages alone', () => {
    expect(stemWord('2026', 'de')).toBe('2026');
    expect(stemWord('设置', 'de')).toBe('设置');
    expect(stemWord('settings', undefined)).toBe('settings');
  });
});
