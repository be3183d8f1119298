import MiniSearch from 'minisearch';
import type { EvalDocument, EvalEngine } from './engine';

/*
 * MiniSearch configured as Omnisearch (the popular Obsidian search plugin) configures it, the
 * user-facing baseline for "search that already exists": prefix search, fuzzy 0.2 on terms of
 * four letters or more, OR of terms, and field boosts from Omnisearch's defaults (file name 10,
 * aliases as the file name, folder 7, H1 6, H2 5, H3 4, body 1).
 */

interface Row {
  id: string;
  basename: string;
  aliases: string;
  directory: string;
  headings1: string;
  headings2: string;
  headings3: string;
  content: string;
}

export class MiniSearchEngine implements EvalEngine {
  readonly name = 'MiniSearch (Omnisearch config)';
  private search_ = new MiniSearch<Row>({ fields: [] });

  async index(documents: readonly EvalDocument[]): Promise<void> {
    this.search_ = new MiniSearch<Row>({
      idField: 'id',
      fields: [
        'basename',
        'aliases',
        'directory',
        'headings1',
        'headings2',
        'headings3',
        'content',
      ],
      searchOptions: {
        prefix: (term) => term.length >= 3,
        fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
        combineWith: 'OR',
        boost: {
          basename: 10,
          aliases: 10,
          directory: 7,
          headings1: 6,
          headings2: 5,
          headings3: 4,
          content: 1,
        },
      },
    });
    this.search_.addAll(
      documents.map((doc) => {
        const slash = doc.path.lastIndexOf('/');
        return {
          id: doc.id,
          basename: doc.path.slice(slash + 1).replace(/\.md$/, ''),
          aliases: doc.aliases.join(' '),
          directory: slash >= 0 ? doc.path.slice(0, slash) : '',
          headings1: headingsOf(doc.text, 1),
          headings2: headingsOf(doc.text, 2),
          headings3: headingsOf(doc.text, 3),
          content: doc.title === '' ? doc.text : `${doc.title}\n${doc.text}`,
        };
      }),
    );
  }

  async search(query: string, k: number): Promise<string[]> {
    return this.search_
      .search(query)
      .slice(0, k)
      .map((result) => String(result.id));
  }
}

function headingsOf(text: string, level: number): string {
  const pattern = new RegExp(`^#{${level}}[ \\t]+(.+?)[ \\t#]*$`, 'gm');
  return [...text.matchAll(pattern)].map((match) => match[1]!).join(' ');
}
