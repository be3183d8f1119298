import { describe, expect, it } from 'vitest';
import { STOP_WORDS, isStopWord, normaliseQuery, tokenize } from '../../../shared/search/index';

describe('tokenize', () => {
  it.each([
    ['Hello, World!', ['hello', 'world']],
    ["Obsidian's graph view", ['obsidian', 'graph', 'view']],
    ["don't sync", ['dont', 'sync']],
    ['front-matter/YAML keys', ['front', 'matter', 'yaml', 'keys']],
    ['Café déjà vu', ['cafe', 'deja', 'vu']],
    ['Ｆｕｌｌｗｉｄｔｈ ２０２６', ['fullwidth', '2026']],
    ['#tag [[Link|alias]]', ['tag', 'link', 'alias']],
    ['   ', []],
  ])('%j → %j', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });
});

describe('normaliseQuery', () => {
  it.each([
    ['How do I add a tag to a note?', ['add', 'tag', 'note']],
    ['What is the visa fee', ['visa', 'fee']],
    ["what's due this week?", ['due', 'week']],
    ['Can you tell me about canvas embeds', ['canvas', 'embeds']],
    ['Is there a way to sync without Obsidian Sync?', ['sync', 'without', 'obsidian']],
    ['please show me how to create a daily note', ['create', 'daily', 'note']],
    ['files not synced', ['files', 'not', 'synced']],
    ['meeting in May', ['meeting', 'may']],
    ['sync sync SYNC', ['sync']],
    // "how long" asks for a duration: `long` is not what the question is about.
    ['how long can I stay in Portugal?', ['stay', 'portugal']],
    ['How often does the digest run', ['digest', 'run']],
    ['a long note', ['long', 'note']],
    // "how much/many" asks for an amount; "many" elsewhere is a word (Cranfield's "many spans").
    ['How many notes can a vault hold?', ['notes', 'vault', 'hold']],
    ['structures continuous over many spans', ['structures', 'continuous', 'many', 'spans']],
    // Nothing but function words: fall back rather than search for nothing.
    ['what is it', ['is', 'it']],
    ['how?', ['how']],
  ])('%j → %j', (query, terms) => {
    const normalised = normaliseQuery(query);
    expect(normalised.terms).toEqual(terms);
    expect(normalised.text).toBe(terms.join(' '));
  });

  it('exports the stop-word list for the engines', () => {
    expect(STOP_WORDS.has('the')).toBe(true);
    expect(isStopWord('visa')).toBe(false);
    expect(isStopWord('not')).toBe(false);
  });
});
