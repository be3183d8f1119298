import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USE_LITE_MODEL } from '../../../shared/embeddings/use-lite-model';
import {
  contentWeights,
  hitCoverage,
  isRelevant,
  keyTermWeights,
  missingNames,
  namesInPassing,
  otherTermCoverage,
  questionNames,
  relevanceOf,
} from '../../../shared/search/answer-gate';
import type { GatedPassage, RelevanceQuery } from '../../../shared/search/answer-gate';
import { normaliseQuery } from '../../../shared/search/tokenize';
import { noteInput } from './note-fixtures';

const repo = join(__dirname, '../../..');
const model = USE_LITE_MODEL.id;

/** A real note as one passage: its title, front-matter aliases and body. */
function passage(file: string, aliases: string[] = [], vectorScore?: number): GatedPassage {
  const input = noteInput(file, readFileSync(join(repo, file), 'utf8'));
  return {
    chunk: { title: input.title, aliases, headingPath: [], text: input.body },
    ...(vectorScore === undefined ? {} : { vectorScore }),
  };
}

/** The query the search builds for `question`: its terms, names and (optionally) weights. */
function query(question: string, extra: Partial<RelevanceQuery> = {}): RelevanceQuery {
  const { terms } = normaliseQuery(question);
  return { terms, names: questionNames(question, terms), ...extra };
}

describe('questionNames', () => {
  it.each([
    ['How do I change my Apple ID password?', [['apple', 'id']]],
    ['How do I sync my iPhone contacts with Google?', [['iphone'], ['google']]],
    ['iPhone backup to iCloud', [['iphone'], ['icloud']]],
    ['How do I install VS Code extensions?', [['vs', 'code']]],
    ['Who won the football world cup in 1998?', [['1998']]],
    ['Come reimpostare la password di Windows?', [['windows']]],
    // Nothing written as a name: a plain question, or a name typed in lower case.
    ['Is there a discount for students?', []],
    ['reset my windows password', []],
    // German capitalises every noun: only capitals inside a word and digits count there.
    ['Wo speichert Obsidian die Einstellungen?', []],
  ])('%s', (question, names) => {
    const { terms } = normaliseQuery(question);
    expect(questionNames(question, terms)).toEqual(names);
  });
});

describe('the answer gate on real notes', () => {
  const visa = 'companion/sample-vault/Travel/Visa rules.md';
  const setup = 'companion/sample-vault/Projects/Companion setup.md';
  const twoFactor = 'test/fixtures/answer-gate/Two-factor sign-in.md';

  it('answers when the passage names what the question names', () => {
    const hit = passage(visa, ['Schengen visa']);
    expect(isRelevant(hit, query('How much does the Schengen visa cost?'))).toBe(true);
  });

  it('declines a passage that covers the words but not the name asked about', () => {
    const hit = passage(visa, ['Schengen visa']);
    const asked = query('Which documents does the Canadian visa need?');
    expect(missingNames(hit, asked)).toEqual([['canadian']]);
    expect(isRelevant(hit, asked)).toBe(false);
    // The same words without the name pass: the name is what declines it.
    expect(isRelevant(hit, query('Which documents does the visa need?'))).toBe(true);
  });

  it('a name missing outweighs a passing cosine', () => {
    const hit = passage(setup, [], 0.5);
    expect(isRelevant(hit, query('Which port does the companion listen on?', { model }))).toBe(
      true,
    );
    const asked = query('Which port does PostgreSQL listen on?', { model });
    expect(missingNames(hit, asked)).toEqual([['postgresql']]);
    expect(isRelevant(hit, asked, undefined)).toBe(false);
    expect(relevanceOf(hit, asked)).toBeLessThan(0.5);
  });

  it('does not read names out of link addresses', () => {
    // "apple" and "id" are in the passage, but only inside the links' URLs.
    const hit = passage(twoFactor, [], 0.51);
    const asked = query('How do I change my Apple ID password?', { model });
    expect(missingNames(hit, asked)).toEqual([['apple', 'id']]);
    expect(isRelevant(hit, asked)).toBe(false);
    // Named in its text (a link's words), it answers what the passage says about it.
    const scan = query('How do I scan the code with Google Authenticator?', { model });
    expect(isRelevant(hit, scan)).toBe(true);
  });

  it('matches a name of several words as a phrase, and a name as a whole word', () => {
    const text = (body: string): GatedPassage => ({
      chunk: { title: 'Accounts', aliases: [], headingPath: [], text: body },
    });
    const apple = query('Reset my Apple ID');
    expect(missingNames(text('Your Apple ID signs you in.'), apple)).toEqual([]);
    expect(missingNames(text('Apple devices show your ID.'), apple)).toEqual([['apple', 'id']]);
    const git = query('Merge two branches in Git');
    expect(missingNames(text('Sign in with GitHub.'), git)).toEqual([['git']]);
    expect(missingNames(text('Commit the vault to a Git repository.'), git)).toEqual([]);
    expect(missingNames(text('Both iPhones sync.'), query('Sync my iPhone'))).toEqual([]);
  });

  it('does not require a name the whole vault is about', () => {
    // The garden note never says "Cairn"; in a Cairn vault the word is everywhere.
    const hit = passage('companion/sample-vault/Garden.md');
    const question = 'How often does Cairn water the basil?';
    const { terms } = normaliseQuery(question);
    const names = questionNames(question, terms);
    expect(names).toEqual([['cairn']]);
    const weightsWith = (cairnChunks: number) =>
      keyTermWeights(
        terms.map((term) => (term === 'cairn' ? cairnChunks : 3)),
        100,
      );
    // In 40 of 100 chunks: the vault's subject, not a name that picks a passage.
    expect(weightsWith(40)[terms.indexOf('cairn')]!).toBeLessThan(1);
    expect(missingNames(hit, { terms, names, weights: weightsWith(40) })).toEqual([]);
    // In 1 of 100: a name the passage must hold.
    expect(missingNames(hit, { terms, names, weights: weightsWith(1) })).toEqual([['cairn']]);
  });

  it('with USE-lite vectors: a passing cosine needs a tenth of the key terms', () => {
    const hit = passage(visa, ['Schengen visa'], 0.45);
    expect(isRelevant(hit, query('visa permit', { model }))).toBe(true);
    expect(isRelevant({ ...hit, vectorScore: 0.44 }, query('visa permit', { model }))).toBe(false);
    // Close in meaning but sharing no word: not an answer.
    expect(isRelevant({ ...hit, vectorScore: 0.6 }, query('entry permit', { model }))).toBe(false);
  });

  describe('names in passing', () => {
    const viewer = 'test/fixtures/answer-gate/Web viewer.md';
    /** The note's "Reader view" section, as the chunker cuts it: Firefox only in its body. */
    const readerView = (vectorScore?: number): GatedPassage => {
      const whole = passage(viewer, [], vectorScore);
      const text = whole.chunk.text;
      const start = text.indexOf('Select the glasses');
      return {
        ...whole,
        chunk: {
          ...whole.chunk,
          headingPath: ['Reader view'],
          text: text.slice(start, text.indexOf('## Firefox')),
        },
      };
    };
    /** Weights as the help vault's index gives them: bookmark and Firefox rare, page common. */
    const bookmark = query('How do I bookmark a page in Firefox?', {
      model,
      weights: [4.34, 2.07, 5.3],
    });

    it('declines a passage that mentions the name but not what is asked about it', () => {
      const hit = readerView(0.68);
      expect(bookmark.terms).toEqual(['bookmark', 'page', 'firefox']);
      expect(missingNames(hit, bookmark)).toEqual([]);
      expect(namesInPassing(hit, bookmark)).toEqual([['firefox']]);
      // page, not bookmark: a third of the weight besides the name.
      expect(otherTermCoverage(hit, bookmark)).toBeCloseTo(2.07 / 6.41, 3);
      // Coverage 0.63 and a cosine of 0.68 passed before; naming Firefox in passing does not.
      expect(isRelevant(hit, bookmark)).toBe(false);
      expect(relevanceOf(hit, bookmark)).toBeLessThan(0.5);
    });

    it('answers when the passage also covers what is asked about the name', () => {
      const asked = query('Which library does the reader view of a page use from Firefox?', {
        model,
      });
      expect(namesInPassing(readerView(0.5), asked)).toEqual([['firefox']]);
      expect(otherTermCoverage(readerView(0.5), asked)).toBeGreaterThanOrEqual(0.5);
      expect(isRelevant(readerView(0.5), asked)).toBe(true);
    });

    it('does not ask for the other terms when a heading or the title names it', () => {
      // The "Firefox" section: the name is its heading, so the passage is about it.
      const whole = passage(viewer, [], 0.68);
      const text = whole.chunk.text;
      const firefox: GatedPassage = {
        ...whole,
        chunk: {
          ...whole.chunk,
          headingPath: ['Firefox'],
          text: text.slice(text.indexOf('Links')),
        },
      };
      expect(namesInPassing(firefox, bookmark)).toEqual([]);
      expect(isRelevant(firefox, bookmark)).toBe(true);
      // A heading inside the chunk's text counts as well (the whole note as one passage).
      expect(namesInPassing(whole, bookmark)).toEqual([]);
      // So does an alias.
      expect(
        namesInPassing(
          { ...readerView(0.68), chunk: { ...readerView().chunk, aliases: ['Firefox reader'] } },
          bookmark,
        ),
      ).toEqual([]);
    });

    it('asks nothing more of a question that is only a name', () => {
      const asked = query('Firefox', { model });
      expect(otherTermCoverage(readerView(0.5), asked)).toBe(1);
    });
  });

  describe('function words of another language', () => {
    const shortcuts = 'test/fixtures/answer-gate/Tasti di scelta rapida.md';

    it('weigh nothing: sharing only them is sharing nothing', () => {
      const hit = passage(shortcuts, [], 0.667);
      // Weights as the Italian help vault's index gives them: function words are in most chunks.
      const asked = query('Come si cucina la pasta alla carbonara?', {
        model,
        weights: [1.07, 1.77, 7.74, 0.56, 7.74, 1.82, 7.74],
      });
      expect(asked.terms).toEqual(['come', 'si', 'cucina', 'la', 'pasta', 'alla', 'carbonara']);
      expect(contentWeights(asked)).toEqual([0, 0, 7.74, 0, 7.74, 1.82, 7.74]);
      // "alla" is all it shares: under the tenth a passing cosine needs (USE-lite is an
      // English model, and its cosines for Italian run high).
      expect(hitCoverage(hit, asked)).toBeCloseTo(1.82 / 25.04, 3);
      expect(isRelevant(hit, asked)).toBe(false);
    });

    it('leave the content words of an answerable question to count', () => {
      const hit = passage(shortcuts, [], 0.6);
      const asked = query('Come si cambia un tasto di scelta rapida per un comando?', { model });
      expect(hitCoverage(hit, asked)).toBe(1);
      expect(isRelevant(hit, asked)).toBe(true);
    });

    it('change nothing for English questions, whose function words are stop words', () => {
      const asked = query('How do I bookmark a page in Firefox?', { weights: [4.34, 2.07, 5.3] });
      expect(contentWeights(asked)).toEqual([4.34, 2.07, 5.3]);
    });
  });
});
