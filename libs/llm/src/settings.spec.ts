import { LlmConfigError, llmSettingsFromEnv, parseLlmSettings } from './settings';

describe('llmSettingsFromEnv', () => {
  it('is undefined without a base URL, so callers run without an LLM', () => {
    expect(llmSettingsFromEnv({})).toBeUndefined();
    expect(llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: '  ', QUARRY_LLM_MODEL: 'x' })).toBeUndefined();
  });

  it('reads the settings and fills in the defaults', () => {
    expect(
      llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', QUARRY_LLM_MODEL: 'qwen2.5-coder:7b', QUARRY_LLM_TIMEOUT_MS: '5000' }),
    ).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b', apiKey: undefined, timeoutMs: 5000, maxRetries: 2, temperature: 0, retryBaseMs: 500 });
    expect(llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'https://api.openai.com/v1', QUARRY_LLM_MODEL: 'gpt-4o-mini', QUARRY_LLM_API_KEY: 'sk-test' })).toMatchObject({
      apiKey: 'sk-test',
      timeoutMs: 10_000,
    });
  });

  it('rejects a bad URL, naming the variable', () => {
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'not a url', QUARRY_LLM_MODEL: 'm' })).toThrow(LlmConfigError);
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'not a url', QUARRY_LLM_MODEL: 'm' })).toThrow(/QUARRY_LLM_BASE_URL: must be an http\(s\) URL/);
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'ftp://example.org/v1', QUARRY_LLM_MODEL: 'm' })).toThrow(/QUARRY_LLM_BASE_URL: must use http or https/);
  });

  it('requires a model and a positive integer timeout once a base URL is set', () => {
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:8000/v1' })).toThrow(/QUARRY_LLM_MODEL: must name a model/);
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:8000/v1', QUARRY_LLM_MODEL: 'm', QUARRY_LLM_TIMEOUT_MS: 'soon' })).toThrow(
      /QUARRY_LLM_TIMEOUT_MS: /,
    );
    expect(() => llmSettingsFromEnv({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:8000/v1', QUARRY_LLM_MODEL: 'm', QUARRY_LLM_TIMEOUT_MS: '-1' })).toThrow(
      /QUARRY_LLM_TIMEOUT_MS: /,
    );
  });
});

describe('parseLlmSettings', () => {
  it('names every bad option', () => {
    expect(() => parseLlmSettings({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', maxRetries: -1, temperature: 3 })).toThrow(/maxRetries: [\s\S]*temperature: /);
  });
});
