/**
 * A Svelte action drawing an Obsidian icon into a button: `use:icon={[setIcon, 'copy']}`.
 * The setter comes from the adapter (obsidian's setIcon), so components import no `obsidian`;
 * without one the button keeps its text label.
 */
export function icon(
  node: HTMLElement,
  [set, name]: [((el: HTMLElement, icon: string) => void) | undefined, string],
): void {
  if (!set) return;
  node.textContent = '';
  set(node, name);
  node.classList.add('clickable-icon');
}
