import { Notice, TFile } from 'obsidian';
import type { Plugin } from 'obsidian';
import { MemoryImportError, memoryImportKind, parseMemoryImport } from '../../../shared/memory';
import { ChatPortError } from '../../../shared/chat/ports';
import type { VaultMemories } from '../vault-memories';

/**
 * Command "Import memories from this file" (docs/memory-digest-calendar.md, import): the open
 * `.md` or `.txt` file's lines or list items become memories in `Cairn/Memory.md`, all in one
 * write or none, with duplicates skipped and counted (the same reader as the companion's
 * `POST /api/v1/memories/import`).
 */
export function registerMemoryImportCommand(plugin: Plugin, memories: VaultMemories): void {
  plugin.addCommand({
    id: 'import-memories-from-file',
    name: 'Import memories from this file',
    checkCallback: (checking) => {
      const file = plugin.app.workspace.getActiveFile();
      if (!(file instanceof TFile) || memoryImportKind(file.name) === undefined) return false;
      if (file.path === 'Cairn/Memory.md') return false;
      if (!checking) void importFrom(plugin, memories, file);
      return true;
    },
  });
}

async function importFrom(plugin: Plugin, memories: VaultMemories, file: TFile): Promise<void> {
  try {
    const kind = memoryImportKind(file.name)!;
    const lines = parseMemoryImport(await plugin.app.vault.cachedRead(file), kind, file.name);
    const { imported, duplicates } = await memories.importLines(lines, file.name);
    new Notice(
      `Cairn: ${imported} ${imported === 1 ? 'memory' : 'memories'} imported` +
        (duplicates > 0 ? `, ${duplicates} already known` : '') +
        '.',
    );
  } catch (error) {
    if (error instanceof MemoryImportError || error instanceof ChatPortError) {
      new Notice(`Cairn: ${error.message}`);
      return;
    }
    throw error;
  }
}
