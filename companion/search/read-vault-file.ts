import { createHash } from 'node:crypto';
import { basename } from 'node:path/posix';
import { chunkNote, chunkPdfPages, detectLanguage, languageFromTag } from '../../shared/search';
import type { Language } from '../../shared/search';
import { extractPdfText, PdfExtractionError } from '../pdf/extract-text';
import { PdfBusyError } from '../pdf/pdf-reader';
import type { PdfTextReader } from '../pdf/pdf-reader';
import type { PdfAnnotation, PdfAnnotationKind } from '../pdf/extract-text';
import { decodeNoteBytes } from './decode-text';
import type { ChunkRecord, FileRecord } from './index-store';
import { readIndexedNoteMeta } from './indexed-note-meta';
import { extractDecisions } from '../../shared/search/decisions';
import type { ExtractedDecision } from '../../shared/search/decisions';

/**
 * Bumped whenever parsing or chunking changes what a file turns into: it is part of the
 * stored content hash, so a new version re-indexes every file once (embeddings of unchanged
 * chunk texts are kept).
 */
// v3: FTS text spaced between Chinese/Japanese/Thai words and carrying per-language stems.
// v4: front-matter `updated` stored (citation dates) and decisions extracted.
export const INDEX_FORMAT = 'v4';

/** Notes above this are not indexed (a log file or a dump saved as `.md`). */
export const MAX_NOTE_BYTES = 16 * 1024 * 1024;
/** PDFs above this are not opened; the ingest route accepts 50 MB. */
export const MAX_PDF_BYTES = 64 * 1024 * 1024;

interface VaultFileBase {
  /** Vault-relative, `/`-separated. */
  readonly path: string;
  readonly kind: 'markdown' | 'text' | 'pdf';
  readonly mtimeMs: number;
  /** The bytes' SHA-256, when the caller has it already (the vault change feed). */
  readonly hash?: string;
}

/**
 * A file to read: its bytes, or (a PDF) the absolute path of its file, which only the PDF
 * reader's child process reads, so a large PDF is never held by the companion.
 */
export type VaultFileInput =
  | (VaultFileBase & { readonly bytes: Uint8Array })
  | (VaultFileBase & {
      readonly kind: 'pdf';
      readonly file: string;
      readonly size: number;
      readonly hash: string;
    });

export interface IndexedFile {
  readonly file: FileRecord;
  readonly chunks: ChunkRecord[];
  /** Decisions the note states (shared/search/decisions.ts); none for PDFs and failures. */
  readonly decisions?: ExtractedDecision[];
}

export function indexedVersionOfBytes(bytes: Uint8Array): string {
  return indexedVersionOfHash(createHash('sha256').update(bytes).digest('hex'));
}

/**
 * What the index stores as a file's content hash: the bytes' SHA-256 with the parser's
 * INDEX_FORMAT, so a new format re-reads every file once.
 */
export function indexedVersionOfHash(sha256: string): string {
  return `${INDEX_FORMAT}:${sha256}`;
}

/** A file the feed handed over without its bytes (too large): recorded as not indexed. */
export function tooLargeToIndex(file: {
  path: string;
  kind: 'markdown' | 'text' | 'pdf' | 'other';
  size: number;
  mtimeMs: number;
  hash: string;
}): IndexedFile {
  const pdf = file.kind === 'pdf';
  return failed(
    {
      path: file.path,
      mtimeMs: file.mtimeMs,
      size: file.size,
      indexedVersion: indexedVersionOfHash(file.hash),
    },
    pdf ? 'pdf' : 'note',
    basename(file.path).replace(/\.(md|txt|pdf)$/i, ''),
    tooLarge(file.size, pdf ? MAX_PDF_BYTES : MAX_NOTE_BYTES),
  );
}

/**
 * Turns one file's bytes into what the index stores. Never throws for bad content: a file
 * that cannot be read comes back with `error` set and no chunks; one read only in part
 * comes back with `warnings`.
 */
export async function readVaultFile(
  input: VaultFileInput,
  readPdfText: PdfTextReader = (source) => extractPdfText(source),
  signal?: AbortSignal,
): Promise<IndexedFile> {
  const base = {
    path: input.path,
    mtimeMs: input.mtimeMs,
    size: 'bytes' in input ? input.bytes.length : input.size,
    indexedVersion:
      'bytes' in input && input.hash === undefined
        ? indexedVersionOfBytes(input.bytes)
        : indexedVersionOfHash(input.hash ?? ''),
  };
  const fallbackTitle = basename(input.path).replace(/\.(md|txt|pdf)$/i, '');
  if (input.kind === 'pdf') return readPdf(input, base, fallbackTitle, readPdfText, signal);

  if (input.bytes.length > MAX_NOTE_BYTES) {
    return failed(base, 'note', fallbackTitle, tooLarge(input.bytes.length, MAX_NOTE_BYTES));
  }
  const decoded = decodeNoteBytes(input.bytes);
  if (!decoded.ok) return failed(base, 'note', fallbackTitle, decoded.reason);

  const meta =
    input.kind === 'markdown'
      ? readIndexedNoteMeta(input.path, decoded.text)
      : {
          title: fallbackTitle,
          tags: [],
          aliases: [],
          body: decoded.text,
          bodyStartLine: 1,
          warnings: [],
        };
  const kind = meta.type?.toLowerCase() === 'reminder' ? 'reminder' : 'note';
  const chunks = chunkNote({
    path: input.path,
    title: meta.title,
    aliases: meta.aliases,
    tags: meta.tags,
    ...('id' in meta && meta.id !== undefined ? { id: meta.id } : {}),
    ...('type' in meta && meta.type !== undefined ? { type: meta.type } : {}),
    body: meta.body,
    bodyStartLine: meta.bodyStartLine,
  });
  return {
    file: {
      ...base,
      kind,
      ...('id' in meta && meta.id !== undefined ? { noteId: meta.id } : {}),
      title: meta.title,
      tags: meta.tags,
      aliases: meta.aliases,
      ...('createdMs' in meta && meta.createdMs !== undefined ? { createdMs: meta.createdMs } : {}),
      ...('updatedMs' in meta && meta.updatedMs !== undefined ? { updatedMs: meta.updatedMs } : {}),
      warnings: [...decoded.warnings, ...meta.warnings],
      ...languageOf('lang' in meta ? meta.lang : undefined, `${meta.title}\n${meta.body}`),
    },
    chunks: chunks.map((chunk) => ({
      chunkKey: chunk.chunkId,
      headingPath: chunk.headingPath,
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      text: chunk.text,
      textHash: chunk.textHash,
    })),
    decisions:
      input.kind === 'markdown' && kind === 'note'
        ? extractDecisions(meta.body, meta.bodyStartLine)
        : [],
  };
}

async function readPdf(
  input: VaultFileInput,
  base: Pick<FileRecord, 'path' | 'mtimeMs' | 'size' | 'indexedVersion'>,
  title: string,
  readPdfText: PdfTextReader,
  signal: AbortSignal | undefined,
): Promise<IndexedFile> {
  if (base.size > MAX_PDF_BYTES) {
    return failed(base, 'pdf', title, tooLarge(base.size, MAX_PDF_BYTES));
  }
  let extracted;
  try {
    extracted = await readPdfText('bytes' in input ? input.bytes : { file: input.file }, signal);
  } catch (error) {
    // Busy is not the file's fault: the indexer tries it again later (VaultIndexer.indexPath).
    if (error instanceof PdfBusyError) throw error;
    const reason =
      error instanceof PdfExtractionError
        ? error.message
        : `cannot read PDF (${(error as Error).message})`;
    return failed(base, 'pdf', title, reason);
  }
  const warnings: string[] = [];
  if (extracted.truncated) warnings.push(extracted.truncated);
  const hasText = extracted.pages.some((page) => page.trim() !== '');
  if (!hasText) {
    // A scan or an empty document: nothing to search but its name, which is still worth finding.
    warnings.push(
      `no text layer on any of its ${extracted.numPages} page(s) (a scan?); only ${extracted.annotations ? 'its annotations and the file name are' : 'the file name is'} searchable`,
    );
  }
  const chunks = chunkPdfPages({
    path: input.path,
    title,
    pages: withAnnotations(extracted.pages, extracted.annotations ?? []),
  });
  return {
    file: {
      ...base,
      kind: 'pdf',
      title,
      tags: [],
      aliases: [],
      warnings,
      ...languageOf(undefined, extracted.pages.join('\n')),
    },
    chunks: chunks.map((chunk) => ({
      chunkKey: chunk.chunkId,
      headingPath: [],
      page: chunk.page,
      text: chunk.text,
      textHash: chunk.textHash,
    })),
  };
}

const ANNOTATION_LABELS: Record<PdfAnnotationKind, string> = {
  highlight: 'Highlight',
  underline: 'Underline',
  strikeout: 'Strikeout',
  squiggly: 'Squiggly',
  note: 'Note',
  'text-box': 'Text box',
  ink: 'Drawing',
  stamp: 'Stamp',
};

/**
 * Each page's text followed by its annotations, one paragraph each, marked as such
 * (`Highlight (p. 3): "the fee is $50" — check the fee`, `Note (p. 3): …`). They join the page
 * they are on, so the chunker keeps them on it and a citation of one names that page, exactly
 * as for the page's own text.
 */
function withAnnotations(
  pages: readonly string[],
  annotations: readonly PdfAnnotation[],
): string[] {
  if (annotations.length === 0) return [...pages];
  const byPage = new Map<number, string[]>();
  for (const annotation of annotations) {
    const parts = [
      annotation.marked === undefined ? undefined : `"${annotation.marked}"`,
      annotation.comment,
    ].filter((part): part is string => part !== undefined);
    const line = `${ANNOTATION_LABELS[annotation.kind]} (p. ${annotation.page}): ${parts.join(' — ')}`;
    byPage.set(annotation.page, [...(byPage.get(annotation.page) ?? []), line]);
  }
  return pages.map((text, index) => {
    const lines = byPage.get(index + 1);
    return lines === undefined ? text : [text.trimEnd(), ...lines].join('\n\n');
  });
}

function failed(
  base: Pick<FileRecord, 'path' | 'mtimeMs' | 'size' | 'indexedVersion'>,
  kind: FileRecord['kind'],
  title: string,
  error: string,
): IndexedFile {
  return { file: { ...base, kind, title, tags: [], aliases: [], error, warnings: [] }, chunks: [] };
}

function tooLarge(size: number, max: number): string {
  const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
  return `too large to index (${mb(size)} MB; the limit is ${mb(max)} MB)`;
}

/** `{ language }` from a front-matter `lang` tag, else detected from the text; `{}` if unknown. */
function languageOf(tag: string | undefined, text: string): { language?: Language } {
  const language = languageFromTag(tag) ?? detectLanguage(text);
  return language === undefined ? {} : { language };
}
