import type { Embedder } from '../../shared/ports';

/** The provider search will use, or why there is none (shown as "keyword only"). */
export type EmbedderChoice =
  | {
      kind: 'active';
      embedder: Embedder;
      label: string;
      /** Releases what the provider holds (the built-in model's worker); the caller registers it. */
      close?: () => void;
    }
  | { kind: 'none'; reason: string };
