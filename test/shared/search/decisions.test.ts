import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../shared/markdown';
import { extractDecisions } from '../../../shared/search/decisions';
import { repoRoot } from '../../helpers/corpora';

/** The decisions of a fixture note, its front matter skipped as the indexer does. */
function decisionsOf(path: string) {
  const text = readFileSync(join(repoRoot, 'test/fixtures', path), 'utf8');
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return extractDecisions(parsed.body, parsed.bodyStartLine);
}

describe('extractDecisions on real ADRs (public domain, test/fixtures/decisions/adr)', () => {
  it('reads status, date and the decision paragraph', () => {
    expect(decisionsOf('decisions/adr/0002-language-framework.md')).toEqual([
      {
        text: 'We will use Ruby on Rails to build this prototype.',
        rejected: [],
        kind: 'adr',
        status: 'Accepted',
        date: '2021-07-01',
        heading: 'Decision',
        startLine: 18,
        endLine: 18,
      },
    ]);
    const [auth] = decisionsOf('decisions/adr/0003-authentication.md');
    expect(auth?.text).toBe(
      'Complaint Tracker will utilise HSES OAuth2 for single-sign-on, utilizing the Ruby Omniauth library to facilitate the protocol.',
    );
    expect([auth?.startLine, auth?.endLine]).toEqual([19, 20]);
    const [license] = decisionsOf('decisions/adr/0005-license.md');
    expect(license?.text).toMatch(/^We will use a CC 1\.0 Universal public domain license\./);
    expect(license?.date).toBe('2021-08-19');
  });

  it('names the alternatives an ADR considered and did not choose', () => {
    const [pooling] = decisionsOf('decisions/adr/0009-database-connection-pooling.md');
    expect(pooling).toMatchObject({
      text: 'We will use PGBouncer as our connection pooler to reduce total connections.',
      status: 'accepted',
      rejected: ['AWS RDS Proxy', 'Reducing Transactions'],
      kind: 'adr',
    });
  });
});

describe('extractDecisions in meeting notes', () => {
  it('takes Decision:, Agreed: and Rejected: lines, a rejection joining the decision above', () => {
    const found = decisionsOf('vaults/team-notes/Meetings/2025-03-04 Infra sync.md');
    expect(found.map((d) => [d.text, d.rejected, d.kind, d.heading, d.startLine])).toEqual([
      [
        'move the nightly backups to restic on the Hetzner storage box.',
        ['Borg'],
        'line',
        'Database',
        13,
      ],
      ['keep the old NAS as a second copy until the end of June 2025.', [], 'line', 'Budget', 19],
    ]);
  });

  it('reads "we decided to … instead of …" and "we considered X but …"', () => {
    const found = decisionsOf('vaults/team-notes/Meetings/2025-06-17 Product review.md');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      text: 'We decided to drop the mandatory phone number step instead of making it optional, since 38% of users left at that step.',
      rejected: ['making it optional', 'a guided tour'],
      kind: 'sentence',
    });
  });

  it('keeps a Rejected: line with no decision near it as a decision of its own', () => {
    const found = decisionsOf('vaults/team-notes/Meetings/2026-01-20 Pricing call.md');
    expect(found.map((d) => [d.text, d.rejected])).toEqual([
      ['annual billing gets a 15% discount.', ['a free tier for teams']],
    ]);
  });

  it('finds nothing in notes that decide nothing, nor in code blocks', () => {
    expect(
      extractDecisions('# Garden\n\nThe basil wants water.\n\n```\nDecision: not in code\n```\n'),
    ).toEqual([]);
  });
});
