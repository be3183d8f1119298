import type { RelatedNote } from './related-notes';

/** What the related-notes view shows. */
export type RelatedViewState =
  | { kind: 'no-note' }
  /** A note is active but the index is not loaded yet. */
  | { kind: 'waiting'; path: string; title: string; status: string }
  | {
      kind: 'ready';
      path: string;
      title: string;
      notes: RelatedNote[];
      /** e.g. "keyword and links only: no embedding provider", '' when nothing to say. */
      status: string;
    };
