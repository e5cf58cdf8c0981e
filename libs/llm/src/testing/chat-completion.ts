/**
 * The smallest chat-completions response body the `openai` package (and Quarry's client) accept,
 * shaped like OpenAI's: one choice, an assistant message, usage. Shared by the fake server's
 * scripted answers and by hand-written cassette fixtures.
 */
export interface ChatCompletionShape {
  content?: string | null;
  refusal?: string | null;
  model?: string;
  finishReason?: 'stop' | 'length' | 'content_filter' | 'tool_calls';
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

let sequence = 0;

export function chatCompletionBody(shape: ChatCompletionShape): Record<string, unknown> {
  sequence += 1;
  return {
    id: `chatcmpl-fake-${sequence}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: shape.model ?? 'fake-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: shape.content ?? null, refusal: shape.refusal ?? null },
        finish_reason: shape.finishReason ?? 'stop',
        logprobs: null,
      },
    ],
    usage: shape.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
