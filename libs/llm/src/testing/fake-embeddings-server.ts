import type http from 'node:http';
import { LoopbackServer, sendJson as send } from './loopback-server';

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI embeddings protocol (`POST /v1/embeddings`),
 * for tests of anything that embeds. By default it answers every text with a deterministic vector:
 * the text's words (identifiers split on case and underscores, lower-cased) hashed into
 * `dimensions` buckets and normalised — texts that share words point the same way, so a test can
 * predict what a semantic ranking prefers without a model. Faults are scripted per request
 * (`fail`, `hang`, `replyRaw`, `wrongCount`), and every request is recorded.
 */
export interface RecordedEmbeddingsRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

type Script = { kind: 'respond'; status: number; body: unknown; headers: Record<string, string> } | { kind: 'hang'; ms: number } | { kind: 'wrong-count' } | { kind: 'delay'; ms: number };

export class FakeEmbeddingsServer {
  readonly requests: RecordedEmbeddingsRequest[] = [];
  private readonly scripts: Script[] = [];

  private constructor(
    private readonly http: LoopbackServer,
    readonly dimensions: number,
  ) {}

  static async start(options: { dimensions?: number } = {}): Promise<FakeEmbeddingsServer> {
    let self: FakeEmbeddingsServer | undefined;
    const http = await LoopbackServer.start((req, res) => self!.handle(req, res));
    self = new FakeEmbeddingsServer(http, options.dimensions ?? 64);
    return self;
  }

  get port(): number {
    return this.http.port;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** Texts embedded so far, over every request. */
  get textsEmbedded(): number {
    return this.requests.reduce((sum, request) => sum + (Array.isArray(request.body?.input) ? request.body.input.length : 0), 0);
  }

  /** The next request answers this status (and body), e.g. 429 with `retry-after`. */
  fail(status: number, headers: Record<string, string> = {}, body: unknown = { error: { message: `scripted ${status}`, type: 'fake_error' } }): this {
    this.scripts.push({ kind: 'respond', status, body, headers });
    return this;
  }

  /** The next request answers 200 with this body as is (malformed data). */
  replyRaw(body: unknown): this {
    this.scripts.push({ kind: 'respond', status: 200, body, headers: {} });
    return this;
  }

  /** The next request answers one vector fewer than it was sent texts. */
  wrongCount(): this {
    this.scripts.push({ kind: 'wrong-count' });
    return this;
  }

  /** The next request gets nothing for `ms`, then the connection drops. */
  hang(ms: number): this {
    this.scripts.push({ kind: 'hang', ms });
    return this;
  }

  /** Every request from now on answers after `ms` (a slow server). */
  slow(ms: number): this {
    this.scripts.length = 0;
    this.scripts.push({ kind: 'delay', ms });
    return this;
  }

  reset(): void {
    this.scripts.length = 0;
    this.requests.length = 0;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** The vector this server gives `text`: the same every time. */
  vectorOf(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    for (const word of wordsOf(text)) vector[bucketOf(word, this.dimensions)] += 1;
    const norm = Math.hypot(...vector) || 1;
    return vector.map((value) => value / norm);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const path = req.url ?? '';
    this.requests.push({ path, headers: req.headers, body });
    if (req.method !== 'POST' || !path.replace(/\?.*$/, '').endsWith('/embeddings')) return send(res, 404, { error: { message: `FakeEmbeddingsServer: no route ${req.method} ${path}` } });
    const inputs: string[] = Array.isArray(body?.input) ? body.input : typeof body?.input === 'string' ? [body.input] : [];
    const answer = (texts: readonly string[]) => ({
      object: 'list',
      model: body?.model,
      data: texts.map((text, index) => ({ object: 'embedding', index, embedding: this.vectorOf(text) })),
      usage: { prompt_tokens: texts.length, total_tokens: texts.length },
    });
    const script = this.scripts[0]?.kind === 'delay' ? this.scripts[0] : this.scripts.shift();
    switch (script?.kind) {
      case 'hang':
        return this.http.later(script.ms, () => req.socket.destroy());
      case 'respond':
        return send(res, script.status, script.body, script.headers);
      case 'wrong-count':
        return send(res, 200, answer(inputs.slice(1)));
      case 'delay':
        return this.http.later(script.ms, () => send(res, 200, answer(inputs)));
      default:
        return send(res, 200, answer(inputs));
    }
  }
}

function wordsOf(text: string): string[] {
  return (text.match(/[A-Za-z][a-z]*|[0-9]+/g) ?? []).map((word) => word.toLowerCase()).filter((word) => word.length > 2);
}

function bucketOf(word: string, dimensions: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < word.length; index++) hash = Math.imul(hash ^ word.charCodeAt(index), 0x01000193) >>> 0;
  return hash % dimensions;
}
