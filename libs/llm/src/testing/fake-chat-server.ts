import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { chatCompletionBody, type ChatCompletionShape } from './chat-completion';
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
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly cassette: ReplayCassette | undefined,
  ) {}

  /** Listens on 127.0.0.1 on a port the kernel picks. */
  static async start(options: { cassette?: ReplayCassette } = {}): Promise<FakeChatServer> {
    let self: FakeChatServer | undefined;
    const server = http.createServer((req, res) => void self?.handle(req, res));
    server.on('connection', (socket) => {
      self?.sockets.add(socket);
      socket.on('close', () => self?.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    self = new FakeChatServer(server, (server.address() as AddressInfo).port, options.cassette);
    return self;
  }

  /** The base URL to give the client: `http://127.0.0.1:<port>/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
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

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
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
        this.later(script.ms, () => req.socket.destroy());
        return;
      }
      if (script) {
        if (script.delayMs > 0) return this.later(script.delayMs, () => send(res, script.status, script.body, script.headers));
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

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
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

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
