import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState } from '../../../../plugin/connection/connection-state';
import type {
  ConnectionListener,
  ReadableConnection,
} from '../../../../plugin/connection/connection-monitor';
import ChatPane from '../../../../plugin/chat/ui/ChatPane.svelte';

/** A store the test sets by hand, in the same contract the plugin's ConnectionMonitor follows. */
class ManualConnection implements ReadableConnection {
  private readonly listeners = new Set<ConnectionListener>();
  constructor(private state: ConnectionState) {}

  subscribe(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  set(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}

function renderPane(state: ConnectionState) {
  const connection = new ManualConnection(state);
  const onRetry = vi.fn();
  const onOpenSettings = vi.fn();
  const view = render(ChatPane, { props: { connection, onRetry, onOpenSettings } });
  const status = () => view.container.querySelector<HTMLElement>('.cairn-connection');
  return { connection, onRetry, onOpenSettings, view, status };
}

afterEach(() => cleanup());

describe('ChatPane', () => {
  it('before the chat is built: what Cairn will do and a composer honestly disabled', () => {
    renderPane({ kind: 'not-configured' });
    expect(screen.getByText('Ask your vault, get answers with citations.')).toBeTruthy();
    const input = screen.getByLabelText<HTMLTextAreaElement>('Message');
    expect(input.disabled).toBe(true);
    expect(input.title).toBe('Cairn is starting…');
    const send = screen.getByRole<HTMLButtonElement>('button', { name: 'Send' });
    expect(send.disabled).toBe(true);
    expect(send.title).toBe('Cairn is starting…');
  });

  it.each<[ConnectionState, string, string, boolean]>([
    [{ kind: 'not-configured' }, 'No companion configured', 'muted', false],
    [{ kind: 'checking' }, 'Checking the companion', 'pending', false],
    [
      { kind: 'unreachable', message: 'http://nas:8787 (ECONNREFUSED)' },
      'did not answer: http://nas:8787',
      'error',
      true,
    ],
    [
      { kind: 'unauthorized', message: 'The companion rejected the token (401).' },
      'rejected the token (401)',
      'error',
      true,
    ],
    [
      { kind: 'blocked-offline', message: 'Offline mode only contacts…' },
      'Offline mode only contacts',
      'warning',
      true,
    ],
    [{ kind: 'invalid-url', message: 'Companion URL: bad' }, 'Companion URL: bad', 'error', true],
    [
      {
        kind: 'connected',
        status: { version: '0.1.0', files: 120, pending: 3, failed: 0, embedding: null },
      },
      'Connected to companion 0.1.0: 120 files, 3 waiting to be indexed.',
      'ok',
      false,
    ],
    [
      {
        kind: 'connected',
        status: { version: '0.1.0', files: 5, pending: 0, failed: 2, embedding: null },
      },
      '5 files, index up to date, 2 could not be read.',
      'warning',
      false,
    ],
  ])('shows %j', (state, text, tone, retry) => {
    const { status } = renderPane(state);
    expect(status()?.textContent).toContain(text);
    expect(status()?.dataset.state).toBe(state.kind);
    expect(status()?.classList.contains(`cairn-connection-${tone}`)).toBe(true);
    expect(screen.queryByRole('button', { name: 'Retry' }) !== null).toBe(retry);
  });

  it('follows the connection as it changes', () => {
    const { connection, status } = renderPane({ kind: 'checking' });
    connection.set({ kind: 'unreachable', message: 'timeout' });
    flushSync();
    expect(status()?.dataset.state).toBe('unreachable');
    connection.set({
      kind: 'connected',
      status: { version: '2', files: 1, pending: 0, failed: 0, embedding: null },
    });
    flushSync();
    expect(status()?.textContent).toContain('Connected to companion 2');
  });

  it('calls back for retry and settings', async () => {
    const { onRetry, onOpenSettings } = renderPane({ kind: 'unreachable', message: 'x' });
    await fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(onOpenSettings).toHaveBeenCalledTimes(1);
  });

  it('unsubscribes from the connection when unmounted', () => {
    const { connection, view } = renderPane({ kind: 'checking' });
    expect(connection.subscribers).toBe(1);
    view.unmount();
    expect(connection.subscribers).toBe(0);
  });
});
