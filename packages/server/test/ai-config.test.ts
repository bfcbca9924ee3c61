import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('AI configuration', () => {
  it('is off without AI_BASE_URL and AI_MODEL', () => {
    expect(loadConfig({}).ai).toBeUndefined();
  });

  it('reads the provider, the key and the timeout, defaulting the timeout to 60 s', () => {
    expect(loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434/v1', AI_MODEL: 'qwen2.5:7b' }).ai).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b',
      apiKey: '',
      timeoutMs: 60_000,
    });
    expect(loadConfig({ AI_BASE_URL: 'https://api.openai.com/v1', AI_MODEL: 'gpt-4o-mini', AI_API_KEY: 'sk-x', AI_TIMEOUT_MS: '1500' }).ai).toMatchObject({
      apiKey: 'sk-x',
      timeoutMs: 1_500,
    });
  });

  it.each([
    [{ AI_MODEL: 'm' }, /AI_BASE_URL must be set/],
    [{ AI_BASE_URL: 'http://x/v1' }, /AI_MODEL must be set/],
    [{ AI_BASE_URL: 'ftp://x/v1', AI_MODEL: 'm' }, /AI_BASE_URL must start with http/],
    [{ AI_BASE_URL: 'http://x/v1', AI_MODEL: 'm', AI_TIMEOUT_MS: 'soon' }, /AI_TIMEOUT_MS must be a whole number/],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
