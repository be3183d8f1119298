import { asCitation } from '../citation-link';
import type { CitationView } from '../citation-link';
import { byId, describeError, noticeItem } from '../dom';
import { citationCard } from './citation-card';
import type { PageContext, PageView } from './page-context';

/*
 * Search and Ask: keyword/semantic search (`GET /api/v1/search`) or a cited answer
 * (`POST /api/v1/answer`). Every result is a citation that opens the note in Obsidian.
 */
export function askView(context: PageContext): PageView {
  const form = byId<HTMLFormElement>('search-form');
  const query = byId<HTMLInputElement>('query');
  const answer = byId<HTMLDivElement>('answer');
  const results = byId<HTMLUListElement>('results');

  const hint = () =>
    noticeItem(
      'Ask a question to get an answer quoted from your notes, or search for words. Each source opens in Obsidian.',
    );
  results.replaceChildren(hint());

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void (submitter?.value === 'search' ? search() : ask());
  });

  function busy(on: boolean): void {
    form.setAttribute('aria-busy', String(on));
    for (const button of form.querySelectorAll('button')) button.disabled = on;
  }

  function show(citations: CitationView[], empty: string, numbered: boolean): void {
    results.replaceChildren(
      ...(citations.length > 0
        ? citations.map((citation, index) =>
            citationCard(context.vault(), citation, numbered ? index + 1 : undefined),
          )
        : [noticeItem(empty)]),
    );
  }

  async function search(): Promise<void> {
    const api = context.api();
    const text = query.value.trim();
    if (!api || text === '') return;
    busy(true);
    answer.hidden = true;
    try {
      const body = await api.get<{ results: { citation: unknown }[] }>(
        `/api/v1/search?q=${encodeURIComponent(text)}&limit=10`,
      );
      const citations = body.results
        .map((result) => asCitation(result.citation))
        .filter((citation): citation is CitationView => citation !== null);
      show(citations, 'No notes match.', false);
    } catch (error) {
      results.replaceChildren(noticeItem(`Search failed: ${describeError(error)}`, 'error'));
    } finally {
      busy(false);
    }
  }

  async function ask(): Promise<void> {
    const api = context.api();
    const question = query.value.trim();
    if (!api || question === '') return;
    busy(true);
    try {
      const body = await api.post<{ answer: string; citations: unknown[] }>('/api/v1/answer', {
        question,
      });
      answer.textContent = body.answer;
      answer.hidden = false;
      const citations = body.citations
        .map(asCitation)
        .filter((citation): citation is CitationView => citation !== null);
      show(citations, 'No sources.', true);
    } catch (error) {
      answer.hidden = true;
      results.replaceChildren(noticeItem(`Asking failed: ${describeError(error)}`, 'error'));
    } finally {
      busy(false);
    }
  }

  return {
    show: async () => {
      if (query.value === '') query.focus();
    },
    reset() {
      query.value = '';
      answer.hidden = true;
      answer.textContent = '';
      results.replaceChildren(hint());
    },
  };
}
