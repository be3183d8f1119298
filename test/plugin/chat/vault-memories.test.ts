import { describe, expect, it } from 'vitest';
import { ChatEngine } from '../../../shared/chat/chat-engine';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { VaultMemories } from '../../../plugin/chat/vault-memories';
import { ManualClock } from '../../fakes/clock';
import { MemoryVaultFiles } from './memory-vault-files';

/* The plugin's chat remembers in Cairn/Memory.md exactly as the companion does. */

function setup() {
  const files = new MemoryVaultFiles();
  const clock = ManualClock.at('2026-11-25T10:00:00Z');
  let seed = 0;
  const memories = new VaultMemories({
    files,
    clock,
    zone: () => 'Europe/Berlin',
    random: () => (seed = (seed + 0.37) % 1),
  });
  const unused = () => Promise.reject(new Error('not used'));
  const engine = new ChatEngine({
    clock,
    zone: () => 'Europe/Berlin',
    notes: { create: unused, append: unused, deleteCreated: unused, removeAppended: unused },
    reminderReader: { list: unused, get: unused },
    reminderWriter: {
      create: unused,
      snooze: unused,
      complete: unused,
      delete: unused,
      restore: unused,
    },
    searcher: { search: async () => [] },
    answerer: { answer: async () => ({ answer: '', citations: [] }) },
    memories,
  });
  const say = async (message: string) => {
    const events: ChatEvent[] = [];
    for await (const event of engine.send(message)) events.push(event);
    return events.map((event) => (event.type === 'token' ? event.text : '')).join('');
  };
  return { files, memories, say, engine };
}

describe('VaultMemories through the shared chat engine', () => {
  it('remembers, replaces visibly, recalls, answers from memory, forgets, and undoes', async () => {
    const { files, say, engine } = setup();
    expect(await say('remember that my passport expires 2031')).toContain("I'll remember that");
    expect(await say('remember that my passport expires 2032')).toContain('replaces');
    const text = files.files.get('Cairn/Memory.md')!;
    expect(text).toMatch(/^---\ntype: memory\n---\n/);
    expect(text).toMatch(
      /- ~~my passport expires 2031 #memory\/uncategorized \(added 2026-11-25\)~~ \(replaced 2026-11-25 by \^m-\w+\) \^m-\w+\n- my passport expires 2032 #memory\/uncategorized \(added 2026-11-25\) \^m-\w+\n$/,
    );
    expect(await say('what do you remember about my passport?')).toContain(
      'my passport expires 2032 [1]',
    );
    expect(await say('when does my passport expire?')).toContain(
      'From what you asked me to remember:\n- my passport expires 2032 [1]',
    );
    expect(await say('forget that my passport expires 2032')).toContain('Forgotten');
    expect(files.files.get('Cairn/Memory.md')).not.toContain('expires 2032');
    const undo = await engine.undo({
      kind: 'remember_memory',
      text: 'my passport expires 2032',
      path: 'Cairn/Memory.md',
    });
    expect(undo.success).toBe(true);
    expect(files.files.get('Cairn/Memory.md')).toContain(
      '- my passport expires 2032 #memory/uncategorized (added 2026-11-25)',
    );
  });
});

describe('recall by category through the plugin chat engine', () => {
  it('"my food memories" and "what do you remember about movies?" recall one category', async () => {
    const { say } = setup();
    await say('remember: Great pizza at Mario’s #memory/food');
    await say('remember: Need to watch Inception #memory/movies');
    await say('remember: Ramen at Ichiran #memory/food');
    const food = await say('show my food memories');
    expect(food).toContain('under Food');
    expect(food).toContain('Great pizza at Mario');
    expect(food).toContain('Ramen at Ichiran');
    expect(food).not.toContain('Inception');
    const movies = await say('what do you remember about movies?');
    expect(movies).toContain('Need to watch Inception');
    expect(movies).not.toContain('pizza');
    expect(await say('what do you remember about books?')).toContain(
      "I don't remember anything under Books yet.",
    );
  });
});
