/**
 * The plugin's list of memories by category (command "Memories", docs/memory-digest-calendar.md):
 * the facts of `Cairn/Memory.md` grouped in the fixed category order, newest first in each,
 * with the counts the category picker shows. Pure: the modal (obsidian/memories-modal.ts)
 * only draws it.
 */
import { MEMORY_CATEGORIES, MEMORY_CATEGORY_LABELS } from '../../shared/memory';
import type { MemoryCategory } from '../../shared/memory';
import type { MemoryItem } from '../../shared/protocol/memories';

export interface MemoryGroup {
  category: MemoryCategory;
  label: string;
  memories: MemoryItem[];
}

/** Every category with how many facts it holds, in the fixed order (zeros included). */
export function memoryCategoryCounts(
  memories: readonly MemoryItem[],
): Array<{ category: MemoryCategory; label: string; count: number }> {
  return MEMORY_CATEGORIES.map((category) => ({
    category,
    label: MEMORY_CATEGORY_LABELS[category],
    count: memories.filter((memory) => memory.category === category).length,
  }));
}

/** The facts of one category (all when `category` is undefined), grouped, newest first. */
export function groupMemories(
  memories: readonly MemoryItem[],
  category?: MemoryCategory,
): MemoryGroup[] {
  const newest = [...memories].sort(
    (a, b) => (b.added ?? '').localeCompare(a.added ?? '') || b.line - a.line,
  );
  return MEMORY_CATEGORIES.filter((name) => category === undefined || name === category)
    .map((name) => ({
      category: name,
      label: MEMORY_CATEGORY_LABELS[name],
      memories: newest.filter((memory) => memory.category === name),
    }))
    .filter((group) => group.memories.length > 0);
}
