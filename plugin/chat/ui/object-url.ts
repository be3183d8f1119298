/**
 * A Svelte action showing a Blob in an `<img>`: `use:objectUrl={blob}`. The object URL lives as
 * long as the element: it is revoked when the element goes (removed, sent, pane closed).
 */
export function objectUrl(
  node: HTMLImageElement,
  blob: Blob,
): { update(next: Blob): void; destroy(): void } {
  let shown = blob;
  let url = URL.createObjectURL(blob);
  node.src = url;
  return {
    // Svelte calls this whenever the component updates (a Blob never compares equal to itself
    // there): only a different Blob gets a new URL.
    update(next) {
      if (next === shown) return;
      shown = next;
      URL.revokeObjectURL(url);
      url = URL.createObjectURL(next);
      node.src = url;
    },
    destroy() {
      URL.revokeObjectURL(url);
    },
  };
}
