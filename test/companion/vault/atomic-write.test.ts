import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createVaultFile,
  editVaultFile,
  contentHash,
  TEMP_FILE_NAME,
  VaultWriteError,
  writeVaultFileFrom,
} from '../../../companion/vault/atomic-write';
import { tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
let vault: string;
beforeEach(() => {
  dir = tempDir('atomic');
  vault = join(dir.path, 'vault');
  mkdirSync(join(vault, 'Notes'), { recursive: true });
  writeFileSync(join(vault, 'Notes/a.md'), 'line one\n- [ ] task\nline three\n');
});
afterEach(() => dir.remove());

const checkTask = (text: string): string => {
  if (!text.includes('- [ ] task')) throw new VaultWriteError('NOT_FOUND', 'the task line is gone');
  return text.replace('- [ ] task', '- [x] task');
};

/** No watching of the replaced file after the edit answers (its witness would still be there). */
const NO_WATCH = { lateWriteGraceMs: 0, lateWatchMs: [] };

function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.tmp'));
}

async function rejection(promise: Promise<unknown>): Promise<VaultWriteError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(VaultWriteError);
  return error as VaultWriteError;
}

describe('editVaultFile', () => {
  it('replaces the file with the edit, keeps its mode and leaves no temp file', async () => {
    chmodSync(join(vault, 'Notes/a.md'), 0o640);
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, NO_WATCH);
    expect(result).toMatchObject({ path: 'Notes/a.md', changed: true });
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\n',
    );
    expect(statSync(join(vault, 'Notes/a.md')).mode & 0o777).toBe(0o640);
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('writes nothing when the edit changes nothing', async () => {
    const before = statSync(join(vault, 'Notes/a.md')).ino;
    const result = await editVaultFile(vault, 'Notes/a.md', (text) => text);
    expect(result.changed).toBe(false);
    expect(statSync(join(vault, 'Notes/a.md')).ino).toBe(before);
  });

  it('re-reads and re-applies the edit after a concurrent change, keeping that change', async () => {
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      beforeWrite: (attempt) => {
        if (attempt === 1) {
          writeFileSync(join(vault, 'Notes/a.md'), 'line one (edited)\n- [ ] task\nline three\n');
        }
      },
    });
    expect(result.changed).toBe(true);
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one (edited)\n- [x] task\nline three\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('answers CONFLICT and writes nothing when the concurrent change removed what it edits', async () => {
    const changed = 'line one\nsomeone deleted the task\n';
    const error = await rejection(
      editVaultFile(vault, 'Notes/a.md', checkTask, {
        beforeWrite: (attempt) => {
          if (attempt === 1) writeFileSync(join(vault, 'Notes/a.md'), changed);
        },
      }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(
      /Notes\/a\.md changed .*the task line is gone.*nothing was written/,
    );
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(changed);
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('answers CONFLICT when the file keeps changing', async () => {
    let n = 0;
    const error = await rejection(
      editVaultFile(vault, 'Notes/a.md', checkTask, {
        beforeWrite: () => {
          n += 1;
          writeFileSync(join(vault, 'Notes/a.md'), `version ${n}\n- [ ] task\n`);
        },
      }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(`version ${n}\n- [ ] task\n`);
    expect(n).toBeGreaterThan(1);
  });

  it('merges a concurrent change elsewhere in the file with the edit (three-way)', async () => {
    // An edit that is not re-applicable (it always writes the same whole text) shows the merge.
    const fixed = 'line one\n- [x] task\nline three\n';
    const result = await editVaultFile(vault, 'Notes/a.md', () => fixed, {
      beforeWrite: (attempt) => {
        if (attempt === 1) appendFileSync(join(vault, 'Notes/a.md'), 'line four\n');
      },
    });
    expect(result.changed).toBe(true);
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(`${fixed}line four\n`);
  });

  it('keeps a change that lands between the last check and the rename (merged in)', async () => {
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      beforeRename: (attempt) => {
        if (attempt === 1) appendFileSync(join(vault, 'Notes/a.md'), 'appended late\n');
      },
    });
    expect(result.conflictCopy).toBeUndefined();
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\nappended late\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('keeps a late change that cannot be merged as a conflict copy beside the note', async () => {
    const clock = { now: () => Date.parse('2026-11-25T03:41:00Z') };
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      clock,
      beforeRename: (attempt) => {
        // Rewrites the task line in place (same inode), as an editor saving the file does.
        if (attempt === 1) writeFileSync(join(vault, 'Notes/a.md'), 'line one\n- [ ] task!\n');
      },
    });
    expect(result.conflictCopy).toBe('Notes/a.conflict-20261125-034100.md');
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\n',
    );
    expect(readFileSync(join(vault, 'Notes/a.conflict-20261125-034100.md'), 'utf8')).toBe(
      'line one\n- [ ] task!\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('merges a write that lands on the replaced file after the edit answered', async () => {
    await editVaultFile(vault, 'Notes/a.md', checkTask, { lateWriteGraceMs: 0, lateWatchMs: [5] });
    // A writer that opened the old file before the rename writes now: into the old inode,
    // which only the witness link still names.
    const [witness] = leftovers(join(vault, 'Notes'));
    expect(witness).toMatch(TEMP_FILE_NAME);
    appendFileSync(join(vault, 'Notes', witness!), 'written late\n');
    await vi.waitFor(() => expect(leftovers(join(vault, 'Notes'))).toEqual([]));
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\nwritten late\n',
    );
  });

  /** How sync tools write: the whole text to a temp file, then renamed over the note. */
  function renameOver(path: string, text: string): void {
    const temp = join(vault, 'Notes/.sync-tool.tmp');
    writeFileSync(temp, text);
    renameSync(temp, join(vault, path));
  }

  it('keeps a version a rename-style writer put in place after the witness was made', async () => {
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      beforeRename: (attempt) => {
        if (attempt === 1) {
          renameOver('Notes/a.md', 'line one\n- [ ] task\nline three\nrenamed in late\n');
        }
      },
    });
    expect(result.conflictCopy).toBeUndefined();
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\nrenamed in late\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it("brings Cairn's edit back when a version read before it is renamed over it", async () => {
    const note = join(vault, 'Notes/a.md');
    const stale = readFileSync(note, 'utf8');
    let landed: Promise<void> | undefined;
    await editVaultFile(vault, 'Notes/a.md', checkTask, {
      lateWriteGraceMs: 200,
      lateWatchMs: [],
      beforeRename: () => {
        if (landed !== undefined) return;
        // A sync tool that read the note before Cairn's rename writes its version once the
        // rename is done: it lands over Cairn's file, not the one the witness holds.
        const witnessed = statSync(note).ino;
        landed = vi.waitFor(
          () => {
            if (statSync(note).ino === witnessed) throw new Error('not renamed yet');
            renameOver('Notes/a.md', `${stale}from the sync tool\n`);
          },
          { timeout: 150, interval: 1 },
        );
      },
    });
    await landed;
    expect(readFileSync(note, 'utf8')).toBe(
      'line one\n- [x] task\nline three\nfrom the sync tool\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('brings back an edit that a later edit would otherwise have started from without', async () => {
    const note = join(vault, 'Notes/a.md');
    const stale = readFileSync(note, 'utf8');
    const watched = { lateWriteGraceMs: 0, lateWatchMs: [60_000] };
    await editVaultFile(vault, 'Notes/a.md', checkTask, watched);
    await editVaultFile(vault, 'Notes/a.md', (text) => `${text}second edit\n`, {
      lateWriteGraceMs: 0,
      lateWatchMs: [60_000],
    });
    // Written over both by a writer that read the note before either.
    renameOver('Notes/a.md', `${stale}outside\n`);
    await editVaultFile(vault, 'Notes/a.md', (text) => `${text}third edit\n`, NO_WATCH);
    const text = readFileSync(note, 'utf8');
    expect(text).toBe('line one\n- [x] task\nline three\noutside\nsecond edit\nthird edit\n');
  });

  it('keeps an earlier write when a stale copy lands while the next edit runs', async () => {
    const note = join(vault, 'Notes/a.md');
    const stale = readFileSync(note, 'utf8');
    const watched = { lateWriteGraceMs: 0, lateWatchMs: [60_000] };
    await editVaultFile(vault, 'Notes/a.md', (text) => `${text}fact 1\n`, watched);
    await editVaultFile(vault, 'Notes/a.md', (text) => `${text}fact 2\n`, {
      ...watched,
      beforeWrite: (attempt) => {
        // Saved in place by an editor that read the note before fact 1 was written.
        if (attempt === 1) writeFileSync(note, `${stale}outside\n`);
      },
    });
    expect(readFileSync(note, 'utf8')).toBe(`${stale}outside\nfact 1\nfact 2\n`);
  });

  it("does not bring back a line Cairn's own later edit replaced", async () => {
    const note = join(vault, 'Notes/a.md');
    const stale = readFileSync(note, 'utf8');
    const watched = { lateWriteGraceMs: 0, lateWatchMs: [60_000] };
    const retitle = (title: string) => (text: string) =>
      text.replace(/^line one.*$/m, `line one ${title}`);
    await editVaultFile(vault, 'Notes/a.md', retitle('A'), watched);
    await editVaultFile(vault, 'Notes/a.md', retitle('B'), watched);
    // A writer that read Cairn's last version adds a line: nothing to restore.
    renameOver('Notes/a.md', `${readFileSync(note, 'utf8')}outside 1\n`);
    await editVaultFile(vault, 'Notes/a.md', (text) => text, NO_WATCH);
    expect(readFileSync(note, 'utf8')).toBe('line one B\n- [ ] task\nline three\noutside 1\n');
    // One that read the note before both: both come back, in order (B is what stands).
    renameOver('Notes/a.md', `${stale}outside 2\n`);
    await editVaultFile(vault, 'Notes/a.md', (text) => text, NO_WATCH);
    expect(readFileSync(note, 'utf8')).toBe('line one B\n- [ ] task\nline three\noutside 2\n');
    expect(readdirSync(join(vault, 'Notes')).filter((name) => name.includes('conflict'))).toEqual(
      [],
    );
  });

  it("keeps every one of Cairn's own concurrent edits of one file", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `edit ${i}\n`);
    await Promise.all(
      lines.map((line) => editVaultFile(vault, 'Notes/a.md', (text) => text + line, NO_WATCH)),
    );
    const text = readFileSync(join(vault, 'Notes/a.md'), 'utf8');
    for (const line of lines) expect(text).toContain(line);
  });

  it('keeps a version renamed over the note after the last check, in the instant before the swap', async () => {
    // Another program's rename lands between Cairn's last inode check and its own replace of
    // the note: a plain rename over the note would destroy that file unseen.
    let raced = false;
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      inLastWindow: () => {
        if (!raced) {
          raced = true;
          renameOver(
            'Notes/a.md',
            'line one\n- [ ] task\nline three\nrenamed in at the last instant\n',
          );
        }
      },
    });
    expect(result.conflictCopy).toBeUndefined();
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\nrenamed in at the last instant\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('keeps a last-instant version that cannot be merged as a conflict copy', async () => {
    const clock = { now: () => Date.parse('2026-12-03T14:00:00Z') };
    let raced = false;
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      clock,
      inLastWindow: () => {
        if (raced) return;
        raced = true;
        renameOver('Notes/a.md', 'line one\n- [ ] task, rewritten\n');
      },
    });
    expect(result.conflictCopy).toBe('Notes/a.conflict-20261203-140000.md');
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(
      'line one\n- [x] task\nline three\n',
    );
    expect(readFileSync(join(vault, 'Notes/a.conflict-20261203-140000.md'), 'utf8')).toBe(
      'line one\n- [ ] task, rewritten\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('builds on a note made anew while the old one was aside, and loses neither', async () => {
    // A writer that read the note saves its version in the microseconds the name is empty.
    const note = join(vault, 'Notes/a.md');
    let raced = false;
    const result = await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      whileAside: () => {
        if (raced) return;
        raced = true;
        writeFileSync(note, 'line one\n- [ ] task\nline three\nsaved meanwhile\n');
      },
    });
    expect(result.conflictCopy).toBeUndefined();
    expect(readFileSync(note, 'utf8')).toBe('line one\n- [x] task\nline three\nsaved meanwhile\n');
    expect(readdirSync(join(vault, 'Notes'))).toEqual(['a.md']);
  });

  it('keeps the note as a copy when a writer made a new file while it was aside', async () => {
    // A blind append into the empty name makes a one-line file: the note's text is not in it.
    const clock = { now: () => Date.parse('2026-12-03T14:00:00Z') };
    const note = join(vault, 'Notes/a.md');
    const error = await rejection(
      editVaultFile(vault, 'Notes/a.md', checkTask, {
        ...NO_WATCH,
        clock,
        whileAside: () => {
          if (existsSync(note)) throw new Error('the note was not aside');
          appendFileSync(note, 'appended\n');
        },
      }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(readFileSync(note, 'utf8')).toBe('appended\n');
    expect(readFileSync(join(vault, 'Notes/a.conflict-20261203-140000.md'), 'utf8')).toBe(
      'line one\n- [ ] task\nline three\n',
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('names its temp files so that start-up can find exactly them', async () => {
    const seen: string[] = [];
    await editVaultFile(vault, 'Notes/a.md', checkTask, {
      ...NO_WATCH,
      beforeRename: () => {
        seen.push(...leftovers(join(vault, 'Notes')));
      },
    });
    expect(seen).toHaveLength(2); // the new text and the witness of the old
    for (const name of seen) expect(name).toMatch(TEMP_FILE_NAME);
    expect('.a.md.cairn-notes.tmp').not.toMatch(TEMP_FILE_NAME);
  });

  it('answers NOT_FOUND and creates nothing when the file is deleted meanwhile', async () => {
    const error = await rejection(
      editVaultFile(vault, 'Notes/a.md', checkTask, {
        beforeWrite: () => unlinkSync(join(vault, 'Notes/a.md')),
      }),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/deleted while/);
    expect(readdirSync(join(vault, 'Notes'))).toEqual([]);
  });

  it('refuses a read-only file (even for root, whom the OS would let write)', async () => {
    chmodSync(join(vault, 'Notes/a.md'), 0o444);
    const error = await rejection(editVaultFile(vault, 'Notes/a.md', checkTask));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(/read-only/);
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toContain('- [ ] task');
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('refuses paths outside the vault: traversal, absolute, hidden, through a symlink', async () => {
    writeFileSync(join(dir.path, 'outside.md'), '- [ ] task\n');
    symlinkSync(dir.path, join(vault, 'escape'));
    for (const path of [
      '../outside.md',
      '/etc/passwd',
      '.obsidian/x.md',
      'escape/outside.md',
      '',
    ]) {
      const error = await rejection(editVaultFile(vault, path, checkTask));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.field).toBe('path');
    }
    expect(readFileSync(join(dir.path, 'outside.md'), 'utf8')).toBe('- [ ] task\n');
  });

  it('answers NOT_FOUND for a missing file and passes an edit that does not apply through', async () => {
    expect((await rejection(editVaultFile(vault, 'Notes/none.md', checkTask))).code).toBe(
      'NOT_FOUND',
    );
    writeFileSync(join(vault, 'Notes/a.md'), 'no task here\n');
    const error = await rejection(editVaultFile(vault, 'Notes/a.md', checkTask));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('the task line is gone');
  });

  it('keeps UTF-8, CRLF and control characters byte for byte outside the edit', async () => {
    const text = 'Überschrift\r\n- [ ] task\r\n\u0007bell ✓\r\n';
    writeFileSync(join(vault, 'Notes/a.md'), text);
    await editVaultFile(vault, 'Notes/a.md', checkTask, NO_WATCH);
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe(text.replace('[ ]', '[x]'));
  });
});

describe('createVaultFile', () => {
  it('creates the file and its folders, and never overwrites', async () => {
    const created = await createVaultFile(vault, 'Cairn/Notes/new.md', 'hello\n');
    expect(created.path).toBe('Cairn/Notes/new.md');
    expect(readFileSync(join(vault, 'Cairn/Notes/new.md'), 'utf8')).toBe('hello\n');
    const error = await rejection(createVaultFile(vault, 'Cairn/Notes/new.md', 'other\n'));
    expect(error.code).toBe('CONFLICT');
    expect(readFileSync(join(vault, 'Cairn/Notes/new.md'), 'utf8')).toBe('hello\n');
    expect(leftovers(join(vault, 'Cairn/Notes'))).toEqual([]);
  });

  it('refuses a name that differs only in case, and paths outside the vault', async () => {
    writeFileSync(join(vault, 'Notes/Call.md'), 'x');
    expect((await rejection(createVaultFile(vault, 'Notes/call.md', 'y'))).code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await rejection(createVaultFile(vault, '../x.md', 'y'))).code).toBe('VALIDATION_ERROR');
    rmSync(join(vault, 'Notes/Call.md'));
  });
});

describe('writeVaultFileFrom', () => {
  const clock = { now: () => Date.parse('2026-12-03T14:00:00Z') };
  const original = 'line one\n- [ ] task\nline three\n';
  const source = (): string => {
    const path = join(dir.path, 'blob');
    writeFileSync(path, 'from another device\n');
    return path;
  };

  it('replaces the version it names and leaves no temp file', async () => {
    const result = await writeVaultFileFrom(vault, 'Notes/a.md', source(), contentHash(original), {
      lateWriteGraceMs: 0,
    });
    expect(result).toEqual({ path: 'Notes/a.md' });
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe('from another device\n');
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('keeps a version renamed in after the last check as a conflict copy', async () => {
    const result = await writeVaultFileFrom(vault, 'Notes/a.md', source(), contentHash(original), {
      clock,
      lateWriteGraceMs: 0,
      inLastWindow: () => {
        const temp = join(vault, 'Notes/.sync-tool.tmp');
        writeFileSync(temp, `${original}renamed in at the last instant\n`);
        renameSync(temp, join(vault, 'Notes/a.md'));
      },
    });
    expect(result.conflictCopy).toBe('Notes/a.conflict-20261203-140000.md');
    expect(readFileSync(join(vault, 'Notes/a.md'), 'utf8')).toBe('from another device\n');
    expect(readFileSync(join(vault, 'Notes/a.conflict-20261203-140000.md'), 'utf8')).toBe(
      `${original}renamed in at the last instant\n`,
    );
    expect(leftovers(join(vault, 'Notes'))).toEqual([]);
  });

  it('writes nothing over a note made anew while the old one was aside', async () => {
    const note = join(vault, 'Notes/a.md');
    const error = await rejection(
      writeVaultFileFrom(vault, 'Notes/a.md', source(), contentHash(original), {
        clock,
        lateWriteGraceMs: 0,
        whileAside: () => writeFileSync(note, 'saved meanwhile\n'),
      }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(readFileSync(note, 'utf8')).toBe('saved meanwhile\n');
    // The version it moved aside was the one it named: the caller has it, no copy is made.
    expect(readdirSync(join(vault, 'Notes'))).toEqual(['a.md']);
  });
});
