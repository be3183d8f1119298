import { afterEach, describe, expect, it, vi } from 'vitest';
import { ObsidianHttpTransport } from '../../../../plugin/connection/obsidian/request-url-transport';

const requestUrl = vi.hoisted(() => vi.fn());
vi.mock('obsidian', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  requestUrl,
}));

afterEach(() => {
  vi.useRealTimers();
  requestUrl.mockReset();
});

describe('ObsidianHttpTransport', () => {
  it('passes 4xx/5xx through as answers and asks requestUrl not to throw', async () => {
    requestUrl.mockResolvedValue({ status: 401, text: '{"error":{}}', headers: {} });
    const response = await new ObsidianHttpTransport().request({
      url: 'http://nas:8787/api/v1/status',
      method: 'GET',
      headers: { Authorization: 'Bearer t' },
    });
    expect(response).toEqual({ status: 401, text: '{"error":{}}', headers: {} });
    expect(requestUrl).toHaveBeenCalledWith({
      url: 'http://nas:8787/api/v1/status',
      method: 'GET',
      headers: { Authorization: 'Bearer t' },
      body: undefined,
      contentType: undefined,
      throw: false,
    });
  });

  it('sends a JSON body with its content type', async () => {
    requestUrl.mockResolvedValue({ status: 201, text: '{}', headers: {} });
    await new ObsidianHttpTransport().request({
      url: 'http://nas/x',
      method: 'POST',
      body: '{"a":1}',
    });
    expect(requestUrl.mock.calls[0]?.[0]).toMatchObject({
      body: '{"a":1}',
      contentType: 'application/json',
    });
  });

  it('rejects with the network error when nothing answers', async () => {
    requestUrl.mockRejectedValue(new Error('net::ERR_CONNECTION_REFUSED'));
    await expect(
      new ObsidianHttpTransport().request({ url: 'http://nas/x', method: 'GET' }),
    ).rejects.toThrow('ERR_CONNECTION_REFUSED');
  });

  it('stops waiting after its timeout, and clears the timer when an answer comes first', async () => {
    vi.useFakeTimers();
    requestUrl.mockReturnValue(new Promise(() => undefined));
    const pending = new ObsidianHttpTransport(2_000).request({
      url: 'http://nas/x',
      method: 'GET',
    });
    const assertion = expect(pending).rejects.toThrow('no answer within 2 s');
    await vi.advanceTimersByTimeAsync(2_000);
    await assertion;

    requestUrl.mockResolvedValue({ status: 200, text: 'ok', headers: {} });
    await new ObsidianHttpTransport(2_000).request({ url: 'http://nas/x', method: 'GET' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
