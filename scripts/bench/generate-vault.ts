import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * A deterministic synthetic vault for scale benchmarks: `count` notes in 50 folders, each with
 * front matter (id, tags, created), two to five headed sections of prose drawn from a Zipf-like
 * vocabulary of pseudo-words, lists and the odd inline tag. The same seed gives the same bytes,
 * so runs on different days compare.
 */

export interface GeneratedVault {
  notes: number;
  bytes: number;
  /** Vault-relative paths of the notes, in the order they were written. */
  paths: string[];
  /** Words that occur in the vault, common to rare, for building queries. */
  vocabulary: string[];
}

/** mulberry32: a tiny seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = 'ka lo mi ren sa to vi del mar nu pe ria son ta lin qua ber fo gi hal'.split(' ');

export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

export function generateVault(root: string, count: number, seed = 42): GeneratedVault {
  const random = prng(seed);
  const words = vocabulary(5000, random);
  // Zipf-ish: index = floor(N * u^3) makes the first words far more frequent.
  const word = () => words[Math.floor(words.length * random() ** 3)]!;
  const sentence = () => {
    const length = 6 + Math.floor(random() * 14);
    const parts = Array.from({ length }, word);
    const first = parts[0]!;
    parts[0] = first.charAt(0).toUpperCase() + first.slice(1);
    return `${parts.join(' ')}.`;
  };
  let bytes = 0;
  const paths: string[] = [];
  for (let n = 0; n < count; n++) {
    const folder = `Area ${String(n % 50).padStart(2, '0')}`;
    const title = `${word()} ${word()} ${n}`;
    const tags = [word(), word()].map((t) => t.slice(0, 12));
    const day = 1 + (n % 28);
    const lines = [
      '---',
      `id: gen-${n}`,
      `tags: [${tags.join(', ')}]`,
      `created: 2026-0${1 + (n % 9)}-${String(day).padStart(2, '0')}T09:00:00+01:00`,
      '---',
      `# ${title}`,
      '',
    ];
    const sections = 2 + Math.floor(random() * 4);
    for (let s = 0; s < sections; s++) {
      lines.push(`## ${word()} ${word()}`, '');
      const paragraphs = 1 + Math.floor(random() * 3);
      for (let p = 0; p < paragraphs; p++) {
        lines.push(Array.from({ length: 2 + Math.floor(random() * 4) }, sentence).join(' '), '');
      }
      if (random() < 0.4) {
        for (let i = 0; i < 3; i++) lines.push(`- ${sentence()}`);
        lines.push('');
      }
      if (random() < 0.2) lines.push(`#${word()}`, '');
    }
    const text = lines.join('\n');
    const dir = join(root, folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${title}.md`), text);
    paths.push(`${folder}/${title}.md`);
    bytes += Buffer.byteLength(text);
  }
  return { notes: count, bytes, paths, vocabulary: words };
}

/** Two- and three-word queries from the middle of the vocabulary (neither stop-word common nor absent). */
export function buildQueries(vocabulary: readonly string[], count: number): string[] {
  const random = prng(7);
  const pick = () => vocabulary[Math.floor(50 + random() * 1500)]!;
  return Array.from({ length: count }, () =>
    Array.from({ length: 2 + Math.floor(random() * 2) }, pick).join(' '),
  );
}
