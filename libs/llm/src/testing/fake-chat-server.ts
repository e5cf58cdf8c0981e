import type http from 'node:http';
import { chatCompletionBody, type ChatCompletionShape } from './chat-completion';
import { LoopbackServer, sendJson as send } from './loopback-server';
import type { ReplayCassette } from './replay-cassette';

/**
 * A real HTTP server on 127.0.0.1 speaking the chat-completions protocol, for tests of anything
 * that calls an LLM. It goes through the same `openai` package, sockets and JSON as production,
 * so timeouts, refused connections and Retry-After behave as they would against a real server.
 *
 * Each request takes the next scripted answer (`reply`, `replyText`, `fail`, `hang`, `malformed`…);
 * when none is queued it asks the cassette, if there is one; otherwise it answers 404 with
 * "nothing scripted", which the client does not retry, so an unexpected call fails fast and says so.
 * Every request is recorded with its parsed body, for assertions on model, temperature, messages
 * and response_format.
 */

export interface RecordedChatRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
}

export type ReplyOptions = Omit<ChatCompletionShape, 'content' | 'refusal'> & {
  /** Wait this long before answering (for abort tests). */
  delayMs?: number;
};

type Script =
  | { kind: 'respond'; status: number; body: unknown; headers: Record<string, string>; delayMs: number }
  | { kind: 'hang'; ms: number };

export class FakeChatServer {
  readonly requests: RecordedChatRequest[] = [];
  private readonly scripts: Script[] = [];

  private constructor(
    private readonly http: LoopbackServer,
    private readonly cassette: ReplayCassette | undefined,
  ) {}

  /** Listens on 127.0.0.1 on a port the kernel picks. */
  static async start(options: { cassette?: ReplayCassette } = {}): Promise<FakeChatServer> {
    let self: FakeChatServer | undefined;
    const http = await LoopbackServer.start((req, res) => self!.handle(req, res));
    self = new FakeChatServer(http, options.cassette);
    return self;
  }

  get port(): number {
    return this.http.port;
  }

  /** The base URL to give the client: `http://127.0.0.1:<port>/v1`. */
  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** Answers with `value` serialised as the message content (a well-behaved structured answer). */
  reply(value: unknown, options: ReplyOptions = {}): this {
    return this.replyText(JSON.stringify(value), options);
  }

  /** Answers with this exact message content (fenced JSON, prose, anything). */
  replyText(text: string, options: ReplyOptions = {}): this {
    const { delayMs = 0, ...shape } = options;
    return this.respond(200, chatCompletionBody({ ...shape, content: text }), {}, delayMs);
  }

  /** Answers with a refusal instead of content, as OpenAI does for structured outputs it declines. */
  refuse(text: string): this {
    return this.respond(200, chatCompletionBody({ refusal: text, content: null }));
  }

  /** Answers with content that is cut-off JSON, as a small model or a token limit produces. */
  malformed(): this {
    return this.replyText('{"language": "rust", "confidence": 0.9, "reasoning": "Cargo.toml with');
  }

  /** Answers 200 with this body as is (a response that is not a proper chat completion). */
  replyRaw(body: unknown): this {
    return this.respond(200, body);
  }

  /** Answers an error status, with an OpenAI-style error body by default. */
  fail(status: number, body: unknown = { error: { message: `scripted ${status}`, type: 'fake_error' } }, headers: Record<string, string> = {}): this {
    return this.respond(status, body, headers);
  }

  /** Reads the request and answers nothing for `ms`, then drops the connection. */
  hang(ms: number): this {
    this.scripts.push({ kind: 'hang', ms });
    return this;
  }

  /** Scripted answers not yet consumed. */
  get pending(): number {
    return this.scripts.length;
  }

  /** Forgets scripts and recorded requests (between tests sharing one server). */
  reset(): void {
    this.scripts.length = 0;
    this.requests.length = 0;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private respond(status: number, body: unknown, headers: Record<string, string> = {}, delayMs = 0): this {
    this.scripts.push({ kind: 'respond', status, body, headers, delayMs });
    return this;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const path = req.url ?? '';
      this.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (req.method !== 'POST' || !path.replace(/\?.*$/, '').endsWith('/chat/completions')) {
        return send(res, 404, { error: { message: `FakeChatServer: no route ${req.method} ${path}` } });
      }
      const script = this.scripts.shift();
      if (script?.kind === 'hang') {
        this.http.later(script.ms, () => req.socket.destroy());
        return;
      }
      if (script) {
        if (script.delayMs > 0) return this.http.later(script.delayMs, () => send(res, script.status, script.body, script.headers));
        return send(res, script.status, script.body, script.headers);
      }
      if (this.cassette) {
        const answer = await this.cassette.answer(body);
        return send(res, answer.status, answer.body, answer.headers);
      }
      send(res, 404, { error: { message: `FakeChatServer: nothing scripted for request #${this.requests.length}`, type: 'not_scripted' } });
    } catch (error) {
      // 400, not 500: a broken fixture must fail the test at once, not be retried.
      if (!res.headersSent) send(res, 400, { error: { message: `FakeChatServer: ${(error as Error).message}`, type: 'fake_server_error' } });
    }
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
