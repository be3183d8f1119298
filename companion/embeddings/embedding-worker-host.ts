/**
 * Where an embedding worker runs: a worker thread, or a child process.
 *
 * The built-in model runs in child processes by default. glibc's malloc keeps the memory a parked
 * native (onnxruntime) worker thread frees inside the companion's process unless the process was
 * started with MALLOC_MMAP_THRESHOLD_, which glibc reads only at start-up (~500 MB idle instead
 * of ~175 MB, docs/embeddings-performance.md). A child process gets that variable in its own
 * environment whoever started the companion, and when it is parked it exits, handing every byte
 * back to the system. So the native runtime is the default however the companion is started,
 * and threads remain for tests and for `CAIRN_EMBED_WORKER_HOST=thread`.
 *
 * Both hosts speak `worker-protocol.ts`; `EmbeddingWorker` is the part of node's `Worker` that
 * `WorkerEmbedder` uses, and `ProcessWorker` offers the same over a forked process's IPC channel
 * (advanced serialization, so vectors arrive as Float32Arrays).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EmbedRequestMessage, WorkerReplyMessage } from './worker-protocol';

export const WORKER_HOSTS = ['process', 'thread'] as const;
export type WorkerHost = (typeof WORKER_HOSTS)[number];

/** The environment variable a process worker reads its `workerData` from (JSON). */
export const WORKER_DATA_ENV = 'CAIRN_EMBED_WORKER_DATA';

/** glibc's mmap threshold for process workers (see the file comment); a user's own value wins. */
const PROCESS_WORKER_MMAP_THRESHOLD = '131072';

type Listener<T> = (value: T) => void;

/** What `WorkerEmbedder` needs of a worker, whichever host runs it. */
export interface EmbeddingWorker {
  postMessage(message: EmbedRequestMessage): void;
  on(event: 'message', listener: Listener<WorkerReplyMessage>): unknown;
  on(event: 'error', listener: Listener<Error>): unknown;
  on(event: 'exit', listener: Listener<number>): unknown;
  once(event: 'message', listener: Listener<WorkerReplyMessage>): unknown;
  once(event: 'error', listener: Listener<Error>): unknown;
  once(event: 'exit', listener: Listener<number>): unknown;
  off(event: 'message', listener: Listener<WorkerReplyMessage>): unknown;
  off(event: 'error', listener: Listener<Error>): unknown;
  off(event: 'exit', listener: Listener<number>): unknown;
  /** Stops the worker now; resolves once it is gone. */
  terminate(): Promise<unknown>;
  /** Whether a busy worker keeps the companion's process alive (it must; an idle one must not). */
  ref(): void;
  unref(): void;
}

export function startEmbeddingWorker(
  host: WorkerHost,
  file: URL | string,
  workerData: unknown,
): EmbeddingWorker {
  if (host === 'thread') return new Worker(file, { workerData });
  return new ProcessWorker(typeof file === 'string' ? file : fileURLToPath(file), workerData);
}

/** A forked child process behind the `EmbeddingWorker` interface. */
class ProcessWorker extends EventEmitter implements EmbeddingWorker {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(file: string, workerData: unknown) {
    super();
    this.child = fork(file, [], {
      env: {
        ...process.env,
        MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? PROCESS_WORKER_MMAP_THRESHOLD,
        [WORKER_DATA_ENV]: JSON.stringify(workerData ?? null),
      },
      // The worker is a built .mjs: the parent's flags (a test runner's loaders) are not for it.
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (message) => this.emit('message', message));
    this.child.on('error', (error) => this.emit('error', error));
    this.child.on('exit', (code, signal) => this.emit('exit', code ?? exitCodeOf(signal)));
  }

  postMessage(message: EmbedRequestMessage): void {
    if (!this.child.connected) return; // it is exiting; 'exit' tells the embedder
    this.child.send(message, (error) => {
      if (error) this.emit('error', error);
    });
  }

  terminate(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      // An idle worker is unref'd; whoever awaits its end must keep the process alive until then
      // (else Node exits mid-shutdown with code 0, as a failed listen once did).
      this.child.ref();
      this.child.kill('SIGKILL');
    }
    return this.exited;
  }

  ref(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  unref(): void {
    this.child.unref();
    this.child.channel?.unref();
  }
}

/** 128 + the signal's number, as a shell reports a process a signal ended. */
function exitCodeOf(signal: NodeJS.Signals | null): number {
  return signal === null ? 1 : 128 + (constants.signals[signal] ?? 0);
}
