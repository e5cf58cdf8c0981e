/**
 * The language servers navigation is measured against (bench (n)): TypeScript's language service
 * (`typescript`'s findReferences, in process) and pyright's language server (`pyright-langserver
 * --stdio`, spoken to over LSP). Both answer "the uses of the symbol at this position" as
 * (path, line) pairs, root-relative, lines 1-based.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

export interface OracleAnswer {
  /** `path:line` of every use, the symbol's own declarations included (the caller drops its definition line). */
  pairs: Set<string>;
  ms: number;
}

export interface ReferenceOracle {
  readonly name: string;
  /** The uses of the symbol whose name starts at (line, column) of `file` (1-based line, 0-based column). */
  references(file: string, line: number, column: number): Promise<OracleAnswer>;
  /** The files the server analyses (root-relative): only these are compared. Undefined: every file. */
  files?(): Set<string> | undefined;
  close(): Promise<void>;
}

/** TypeScript's language service over the project's own tsconfig.json (its files and options). */
export class TypeScriptOracle implements ReferenceOracle {
  readonly name = 'TypeScript language service';
  private readonly service: import('typescript').LanguageService;
  private readonly ts: typeof import('typescript');

  constructor(private readonly root: string) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ts = (this.ts = require('typescript') as typeof import('typescript'));
    const configPath = path.join(root, 'tsconfig.json');
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, root);
    const options = { ...parsed.options, noEmit: true };
    const fileNames = parsed.fileNames;
    const snapshots = new Map<string, import('typescript').IScriptSnapshot | undefined>();
    const host: import('typescript').LanguageServiceHost = {
      getScriptFileNames: () => fileNames,
      getScriptVersion: () => '1',
      getScriptSnapshot: (fileName) => {
        if (!snapshots.has(fileName)) {
          const text = ts.sys.readFile(fileName);
          snapshots.set(fileName, text === undefined ? undefined : ts.ScriptSnapshot.fromString(text));
        }
        return snapshots.get(fileName);
      },
      getCurrentDirectory: () => root,
      getCompilationSettings: () => options,
      getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
      realpath: ts.sys.realpath,
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  async references(file: string, line: number, column: number): Promise<OracleAnswer> {
    const started = performance.now();
    const fileName = path.join(this.root, file);
    const program = this.service.getProgram();
    const source = program?.getSourceFile(fileName);
    const pairs = new Set<string>();
    if (source !== undefined) {
      const position = this.ts.getPositionOfLineAndCharacter(source, line - 1, column);
      for (const symbol of this.service.findReferences(fileName, position) ?? []) {
        for (const reference of symbol.references) {
          const referenced = this.service.getProgram()!.getSourceFile(reference.fileName);
          if (referenced === undefined) continue;
          const relative = path.relative(this.root, fs.realpathSync(reference.fileName));
          if (relative.startsWith('..') || relative.includes('node_modules')) continue;
          pairs.add(`${relative}:${referenced.getLineAndCharacterOfPosition(reference.textSpan.start).line + 1}`);
        }
      }
    }
    return { pairs, ms: performance.now() - started };
  }

  /** Builds the program and its checker once (the first query's cost, reported apart). */
  warm(file: string): number {
    const started = performance.now();
    this.service.getProgram()?.getTypeChecker();
    this.service.getSemanticDiagnostics(path.join(this.root, file));
    return performance.now() - started;
  }

  files(): Set<string> {
    const files = new Set<string>();
    for (const source of this.service.getProgram()?.getSourceFiles() ?? []) {
      const relative = path.relative(this.root, source.fileName);
      if (!relative.startsWith('..') && !relative.includes('node_modules')) files.add(relative);
    }
    return files;
  }

  async close(): Promise<void> {
    this.service.dispose();
  }
}

/** pyright's language server over stdio: `textDocument/references` after the workspace is analysed. */
export class PyrightOracle implements ReferenceOracle {
  readonly name = 'pyright';
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly opened = new Set<string>();

  private constructor(private readonly root: string) {
    const server = require.resolve('pyright/langserver.index.js');
    this.child = spawn(process.execPath, [server, '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.stderr.on('data', () => undefined);
  }

  static async start(root: string): Promise<PyrightOracle> {
    const oracle = new PyrightOracle(root);
    const rootUri = pathToFileURL(root).href;
    await oracle.request('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
      capabilities: { textDocument: { references: {} }, workspace: { configuration: true, workspaceFolders: true } },
      initializationOptions: {},
    });
    oracle.notify('initialized', {});
    oracle.notify('workspace/didChangeConfiguration', { settings: { python: { analysis: { diagnosticMode: 'workspace', autoSearchPaths: true, useLibraryCodeForTypes: false } } } });
    return oracle;
  }

  /** Opens every file (so each is parsed and bound before the first question), then asks once to wait for analysis. */
  async openAll(files: readonly string[]): Promise<number> {
    const started = performance.now();
    for (const file of files) {
      const uri = pathToFileURL(path.join(this.root, file)).href;
      if (this.opened.has(uri)) continue;
      this.opened.add(uri);
      this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: fs.readFileSync(path.join(this.root, file), 'utf8') } });
    }
    if (files.length > 0) await this.request('textDocument/references', { textDocument: { uri: pathToFileURL(path.join(this.root, files[0])).href }, position: { line: 0, character: 0 }, context: { includeDeclaration: true } });
    return performance.now() - started;
  }

  async references(file: string, line: number, column: number): Promise<OracleAnswer> {
    const uri = pathToFileURL(path.join(this.root, file)).href;
    if (!this.opened.has(uri)) {
      this.opened.add(uri);
      this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: fs.readFileSync(path.join(this.root, file), 'utf8') } });
    }
    const started = performance.now();
    const locations = (await this.request('textDocument/references', { textDocument: { uri }, position: { line: line - 1, character: column }, context: { includeDeclaration: true } })) as
      | { uri: string; range: { start: { line: number } } }[]
      | null;
    const pairs = new Set<string>();
    for (const location of locations ?? []) {
      const relative = path.relative(this.root, fileURLToPath(location.uri));
      if (relative.startsWith('..')) continue;
      pairs.add(`${relative}:${location.range.start.line + 1}`);
    }
    return { pairs, ms: performance.now() - started };
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.request('shutdown', null), new Promise((resolve) => setTimeout(resolve, 2_000))]);
      this.notify('exit', null);
    } finally {
      setTimeout(() => this.child.kill('SIGKILL'), 500).unref();
    }
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message));
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())?.[1] ?? 0);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString()) as { id?: number; method?: string; result?: unknown; error?: { message: string } };
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      if (message.method !== undefined && message.id !== undefined) {
        // A request from the server (configuration, capability registration): answer it.
        this.send({ jsonrpc: '2.0', id: message.id, result: message.method === 'workspace/configuration' ? [{}] : null });
        continue;
      }
      if (message.id === undefined) continue;
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) continue;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    }
  }
}

/**
 * An oracle whose answers are kept in a JSON file (the analysed files and each asked position's
 * pairs), for tuning runs on a pinned commit: the server is started only for what the file does
 * not hold yet, and its times are then not measured (NaN). Never for the reported figures.
 */
export class CachedOracle implements ReferenceOracle {
  private server?: ReferenceOracle;
  private changed = false;

  private constructor(
    readonly name: string,
    private readonly file: string,
    private readonly stored: { files?: string[] | null; answers: Record<string, string[]> },
    private readonly start: () => Promise<ReferenceOracle>,
  ) {}

  static async open(name: string, file: string, start: () => Promise<ReferenceOracle>): Promise<CachedOracle> {
    const stored = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as CachedOracle['stored']) : { answers: {} };
    const oracle = new CachedOracle(name, file, stored, start);
    if (stored.files === undefined) await oracle.live();
    return oracle;
  }

  async references(file: string, line: number, column: number): Promise<OracleAnswer> {
    const key = `${file}:${line}:${column}`;
    const kept = this.stored.answers[key];
    if (kept !== undefined) return { pairs: new Set(kept), ms: Number.NaN };
    const answer = await (await this.live()).references(file, line, column);
    this.stored.answers[key] = [...answer.pairs];
    this.changed = true;
    return answer;
  }

  files(): Set<string> | undefined {
    if (this.stored.files === undefined && this.server !== undefined) {
      const files = this.server.files?.();
      this.stored.files = files === undefined ? null : [...files];
      this.changed = true;
    }
    return this.stored.files === undefined || this.stored.files === null ? undefined : new Set(this.stored.files);
  }

  async close(): Promise<void> {
    if (this.changed) fs.writeFileSync(this.file, JSON.stringify(this.stored));
    await this.server?.close();
  }

  private async live(): Promise<ReferenceOracle> {
    return (this.server ??= await this.start());
  }
}
