/** A plain-text table; the first two columns left-aligned, the rest right-aligned. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, c) =>
    Math.max(title.length, ...rows.map((row) => (row[c] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
