/*
 * The web-platform globals that shared/ may use beyond ES2022, for the type check of shared/ alone
 * (shared/tsconfig.json, run by `npm run typecheck`). Each exists in every runtime Cairn ships to
 * (Node 20+, Obsidian's Electron, iOS 16.4+ WebKit, Android Chrome) and none is the DOM: code that
 * needs anything else takes it as an injected port. Only the members shared/ calls are declared,
 * so a new use shows up here, in review, before it reaches a runtime that lacks it.
 */

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

interface ReadableStreamDefaultReader<R> {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: R }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

interface ReadableStream<R = unknown> {
  getReader(): ReadableStreamDefaultReader<R>;
  cancel(reason?: unknown): Promise<void>;
}

/** WHATWG URL (settings/validation.ts checks the URLs a user types). */
declare class URL {
  constructor(url: string, base?: string);
  readonly hash: string;
  readonly hostname: string;
  readonly origin: string;
  readonly password: string;
  readonly pathname: string;
  readonly protocol: string;
  readonly search: string;
  readonly username: string;
}
