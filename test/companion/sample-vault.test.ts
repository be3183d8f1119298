import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SAMPLE_VAULT } from './helpers/app';

/*
 * `npm start` serves companion/sample-vault, and it is the demo for every area (indexer,
 * scheduler, phone page). These checks keep it showing what docs/vault-format.md describes.
 */

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(path) : entry.name.endsWith('.md') ? [path] : [];
  });
}

const notes = markdownFiles(SAMPLE_VAULT).map((path) => {
  const text = readFileSync(path, 'utf8');
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  return {
    path: relative(SAMPLE_VAULT, path),
    text,
    frontMatter: match ? (parse(match[1] ?? '') as Record<string, unknown>) : null,
  };
});
const allText = notes.map((note) => note.text).join('\n');
const remindLines = allText.split('\n').filter((line) => line.includes('@remind('));

describe('the sample vault', () => {
  it('has 6–10 notes in a few folders, with and without front matter', () => {
    expect(notes.length).toBeGreaterThanOrEqual(6);
    expect(notes.length).toBeLessThanOrEqual(10);
    expect(new Set(notes.map((note) => note.path.split('/')[0])).size).toBeGreaterThan(3);
    expect(notes.some((note) => note.frontMatter === null)).toBe(true);
    expect(notes.some((note) => Array.isArray(note.frontMatter?.aliases))).toBe(true);
    expect(notes.some((note) => Array.isArray(note.frontMatter?.tags))).toBe(true);
  });

  it('has a reminder note with every key docs/vault-format.md names', () => {
    const reminder = notes.find((note) => note.frontMatter?.type === 'reminder');
    expect(reminder?.frontMatter).toMatchObject({
      id: expect.any(String),
      title: expect.any(String),
      due: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/),
      timezone: expect.any(String),
      repeat: expect.stringMatching(/^FREQ=/),
      status: 'active',
    });
  });

  it('has inline reminders: absolute, zoned, "every" phrase, raw RRULE, a checked task', () => {
    expect(remindLines.some((line) => /@remind\(\d{4}-\d{2}-\d{2} \d{2}:\d{2}\)/.test(line))).toBe(
      true,
    );
    expect(remindLines.some((line) => /@remind\([^)]* [A-Z][a-z]+\/[A-Za-z_]+\)/.test(line))).toBe(
      true,
    );
    expect(remindLines.some((line) => line.includes('@remind(every '))).toBe(true);
    expect(remindLines.some((line) => line.includes('@remind(RRULE:'))).toBe(true);
    expect(remindLines.some((line) => line.startsWith('- [x] '))).toBe(true);
  });

  it('gives every inline reminder a unique block id', () => {
    const ids = remindLines.map((line) => /\^(r-[a-z0-9]+)\s*$/.exec(line)?.[1]);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('shows the other plugins’ syntaxes Cairn reads, and a code block', () => {
    expect(allText).toMatch(/\(@\d{4}-\d{2}-\d{2} \d{2}:\d{2}\)/);
    expect(allText).toMatch(/⏰ \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expect(allText).toMatch(/^```\w+\n[\s\S]*?^```$/m);
  });

  it('ships plugin settings without a token', () => {
    const settings = JSON.parse(
      readFileSync(join(SAMPLE_VAULT, '.obsidian/plugins/cairn/data.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(settings.timezone).toBe('Europe/Berlin');
    expect(JSON.stringify(settings)).not.toMatch(/token/i);
  });
});
