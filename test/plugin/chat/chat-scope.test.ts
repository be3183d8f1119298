import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { chunkNote } from '../../../shared/search/chunk';
import { ChatScope, mentionsIn, openMention } from '../../../plugin/chat/chat-scope';
import { VaultSearcher } from '../../../plugin/chat/vault-searcher';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';
import type { VaultSearch } from '../../../plugin/search/vault-search';

const VAULT: Record<string, string> = {
  'Travel/Visa rules.md': '# Visa rules\n\nThe visa fee is $50 for standard processing.\n',
  'Travel/Japan trip.md': '# Japan trip\n\nThe visa fee for Japan was waived for us.\n',
  'Work/Budget.md': '# Budget\n\nThe conference visa fee is paid by work.\n',
};

function vaultSearch(): VaultSearch {
  const engine = createSearchEngine();
  for (const [path, markdown] of Object.entries(VAULT)) {
    const input = noteInputFromMarkdown(path, markdown);
    if (!input.ok) throw new Error(input.problem.message);
    engine.upsertNote(path, chunkNote(input.input));
  }
  return { ready: true, mode: 'keyword', search: (q, o) => engine.search(q, o) };
}

const byName = (link: string) =>
  Object.keys(VAULT).find((path) => path.endsWith(`/${link}.md`) || path === `${link}.md`);

describe('mentionsIn / openMention', () => {
  it('reads link text from [[mentions]], dropping headings and aliases, once each', () => {
    expect(
      mentionsIn('Compare [[Visa rules#Fees|the rules]] with [[Japan trip]] and [[Visa rules]]'),
    ).toEqual(['Visa rules', 'Japan trip']);
    expect(mentionsIn('no links [here]')).toEqual([]);
  });

  it('finds the [[ being typed at the caret, not a closed one', () => {
    expect(openMention('what about [[Vis', 16)).toEqual({ start: 11, query: 'Vis' });
    expect(openMention('see [[Visa rules]] now', 22)).toBeNull();
    expect(openMention('plain text', 10)).toBeNull();
  });
});

describe('ChatScope with the chat searcher', () => {
  it('restricts the search to attached and mentioned notes, then to a folder, then nothing', async () => {
    const scope = new ChatScope({ resolveLink: byName });
    const searcher = new VaultSearcher(vaultSearch(), () => scope.current);
    const paths = async () =>
      (await searcher.search({ query: 'visa fee' })).map((hit) => hit.citation.path).sort();

    expect(await paths()).toEqual(Object.keys(VAULT).sort());
    expect(scope.beginTurn('What did [[Japan trip]] cost?')).toEqual({ unresolved: [] });
    expect(await paths()).toEqual(['Travel/Japan trip.md']);

    scope.attachNote('Work/Budget.md');
    scope.beginTurn('and [[Nowhere]]?');
    expect(scope.beginTurn('and [[Nowhere]]?')).toEqual({ unresolved: ['Nowhere'] });
    expect(await paths()).toEqual(['Work/Budget.md']);

    scope.detach({ note: 'Work/Budget.md' });
    scope.attachFolder('Travel');
    expect(get(scope.attached)).toEqual({ notes: [], folder: 'Travel' });
    scope.beginTurn('visa fee?');
    expect(await paths()).toEqual(['Travel/Japan trip.md', 'Travel/Visa rules.md']);

    scope.detach({ folder: true });
    scope.beginTurn('visa fee?');
    expect(scope.current).toBeUndefined();
    expect(await paths()).toEqual(Object.keys(VAULT).sort());
  });
});
