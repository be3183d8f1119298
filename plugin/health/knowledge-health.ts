/**
 * The knowledge health view's data (docs/search.md, "Knowledge health"): the companion's
 * `GET /api/v1/health/knowledge` report, fetched through the plugin's one companion client and
 * turned into the sections the view lists. Pure: no `obsidian`, no DOM.
 */
import { KnowledgeHealth } from '../../shared/protocol/knowledge-health';
import type { HealthItem } from '../../shared/protocol/knowledge-health';
import type { CompanionClient } from '../connection/client';

export interface HealthSection {
  /** The report's field, e.g. `broken_links`: stable, for tests and CSS. */
  id: string;
  heading: string;
  items: HealthItem[];
}

export interface HealthGroup {
  heading: string;
  sections: HealthSection[];
}

export type LoadedHealth =
  | { ok: true; indexed: number; groups: HealthGroup[]; problems: number }
  | { ok: false; message: string };

export interface HealthSource {
  client: Pick<CompanionClient, 'call'>;
  /** The companion URL from settings; empty when none is configured. */
  companionUrl: () => string;
}

export const NO_COMPANION =
  'Knowledge health is computed by the Cairn companion, and none is configured. Set its URL and token in Settings → Cairn → Companion.';

/** Fetches the report; never throws: a failure is a sentence for the view. */
export async function loadKnowledgeHealth(source: HealthSource): Promise<LoadedHealth> {
  if (source.companionUrl().trim() === '') return { ok: false, message: NO_COMPANION };
  const answer = await source.client.call('GET', '/api/v1/health/knowledge', KnowledgeHealth);
  if (typeof answer === 'string') {
    return { ok: false, message: `The companion could not report knowledge health: ${answer}.` };
  }
  return describeHealth(answer);
}

/** The report as the view lists it: three groups, each section with its items. */
export function describeHealth(report: KnowledgeHealth): LoadedHealth {
  const groups: HealthGroup[] = [
    {
      heading: 'Coverage',
      sections: [
        { id: 'failed', heading: 'Not indexed', items: report.coverage.failed },
        { id: 'partial', heading: 'Indexed in part', items: report.coverage.partial },
      ],
    },
    {
      heading: 'Metadata hygiene',
      sections: [
        { id: 'untagged', heading: 'Without tags', items: report.hygiene.untagged },
        {
          id: 'duplicate_titles',
          heading: 'Duplicate titles',
          items: report.hygiene.duplicate_titles,
        },
        { id: 'empty', heading: 'Empty notes', items: report.hygiene.empty },
        { id: 'broken_links', heading: 'Broken links', items: report.hygiene.broken_links },
        {
          id: 'orphaned_attachments',
          heading: 'Orphaned attachments',
          items: report.hygiene.orphaned_attachments,
        },
      ],
    },
    {
      heading: 'Staleness',
      sections: [
        {
          id: 'not_updated_in_a_year',
          heading: 'Not updated in a year',
          items: report.staleness.not_updated_in_a_year,
        },
        {
          id: 'often_cited',
          heading: 'Often cited, not updated in a year',
          items: report.staleness.often_cited ?? [],
        },
        {
          id: 'overdue_reminders',
          heading: 'Overdue reminders',
          items: report.staleness.overdue_reminders ?? [],
        },
      ],
    },
  ];
  const problems = groups
    .flatMap((group) => group.sections)
    .reduce((sum, section) => sum + section.items.length, 0);
  return { ok: true, indexed: report.coverage.indexed, groups, problems };
}
