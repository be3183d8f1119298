import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/corpora';

/** Each rule's selector with the at-rules around it (`@media (…)`), comments removed. */
function rules(css: string): Array<{ selector: string; within: string[] }> {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const found: Array<{ selector: string; within: string[] }> = [];
  const stack: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{') {
      const head = text.slice(start, i).trim();
      if (!head.startsWith('@')) found.push({ selector: head, within: [...stack] });
      stack.push(head);
      start = i + 1;
    } else if (char === '}') {
      stack.pop();
      start = i + 1;
    } else if (char === ';') {
      start = i + 1;
    }
  }
  return found;
}

describe('the phone page stylesheet', () => {
  const css = readFileSync(join(repoRoot, 'companion/web/styles.css'), 'utf8');

  it('styles :hover only where a pointer hovers (touch keeps :hover on the last tap)', () => {
    const hovering = rules(css).filter((rule) => rule.selector.includes(':hover'));
    expect(hovering.length).toBeGreaterThan(0);
    for (const rule of hovering) {
      expect(rule.within, rule.selector).toContain('@media (hover: hover)');
    }
  });
});
