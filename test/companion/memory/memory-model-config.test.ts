import { describe, expect, it } from 'vitest';
import { memoryModelConfigFromEnv } from '../../../companion/memory';

describe('memoryModelConfigFromEnv', () => {
  it('is null without CAIRN_MEMORY_MODEL, an OpenAI-compatible model with it', () => {
    expect(memoryModelConfigFromEnv({})).toBeNull();
    expect(
      memoryModelConfigFromEnv({
        CAIRN_MEMORY_MODEL: ' qwen2.5-7b-instruct ',
        CAIRN_MEMORY_MODEL_URL: 'http://127.0.0.1:1234/v1',
      }),
    ).toEqual({ api: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-7b-instruct' });
    expect(
      memoryModelConfigFromEnv({
        CAIRN_MEMORY_MODEL: 'm',
        CAIRN_MEMORY_MODEL_URL: 'https://llm.lan/v1',
        CAIRN_MEMORY_MODEL_API_KEY: 'sk-1',
      }),
    ).toMatchObject({ apiKey: 'sk-1' });
  });

  it('names the variable when the URL is missing or not http(s)', () => {
    expect(() => memoryModelConfigFromEnv({ CAIRN_MEMORY_MODEL: 'm' })).toThrow(
      /CAIRN_MEMORY_MODEL_URL is not/,
    );
    expect(() =>
      memoryModelConfigFromEnv({ CAIRN_MEMORY_MODEL: 'm', CAIRN_MEMORY_MODEL_URL: 'ftp://x/v1' }),
    ).toThrow(/CAIRN_MEMORY_MODEL_URL must be an http\(s\) URL/);
  });
});
