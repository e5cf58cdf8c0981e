/**
 * Test doubles for code that calls an LLM: import from `libs/llm/src/testing` in specs only.
 * Kept out of `@quarry/llm` so production code never loads an HTTP server.
 */
export { FakeChatServer, type RecordedChatRequest, type ReplyOptions } from './fake-chat-server';
export { ReplayCassette, canonicalJson, type CassetteAnswer, type CassetteFixture, type RecordTarget } from './replay-cassette';
export { chatCompletionBody, type ChatCompletionShape } from './chat-completion';
export { FakeEmbeddingsServer, type RecordedEmbeddingsRequest } from './fake-embeddings-server';
