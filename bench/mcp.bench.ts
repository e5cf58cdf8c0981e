/**
 * (x) MCP overhead: `read_file` and `search_text` as an agent calls them — the MCP SDK's Client
 * talking to a spawned `quarry mcp` over stdio — next to the same operation called in this
 * process (WorkspaceOperations, what the tool runs). The difference is what MCP costs: JSON-RPC
 * framing over two pipes, argument and result validation, the text rendering. Samples of the two
 * are interleaved so both see the same machine load.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WorkspaceOperations } from '../libs/mcp/src';
import { closeSharedSearchPool } from '../libs/search/src';
import { QUARRY_BIN, assertBuilt, childEnv } from '../test/support/processes';
import { latencyStats, ms, num, printTable, type LatencyStats } from './support';

export interface McpBenchRow {
  tool: string;
  call: string;
  mcp: LatencyStats;
  library: LatencyStats;
  /** MCP p50 minus library p50. */
  overheadP50: number;
}

export interface McpBenchReport {
  files: number;
  rows: McpBenchRow[];
}

const FILES = 2_000;
const BIG_FILE_LINES = 2_000;

/** A fixed tree: 2,000 small source files and one 2,000-line file, built once per machine. */
function ensureTree(): string {
  const root = path.join(os.tmpdir(), `quarry-bench-mcp-${FILES}`);
  const marker = path.join(root, '.git', 'quarry-bench.json');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    for (let i = 0; i < FILES; i++) {
      const dir = path.join(root, 'src', `module${i % 40}`);
      fs.mkdirSync(dir, { recursive: true });
      const lines = Array.from({ length: 20 }, (_, n) => (n === 7 && i % 25 === 0 ? `export const needle${i} = lookUpNeedle(${i});` : `export const value${n} = compute(${i}, ${n});`));
      fs.writeFileSync(path.join(dir, `file${i}.ts`), `${lines.join('\n')}\n`);
    }
    const big = Array.from({ length: BIG_FILE_LINES }, (_, n) => `  // line ${n + 1}: ${'lorem ipsum dolor sit amet '.repeat(2)}`);
    fs.writeFileSync(path.join(root, 'big.ts'), `${big.join('\n')}\n`);
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, JSON.stringify({ files: FILES + 1 }));
  }
  return fs.realpathSync(root);
}

export async function runMcpBench(options: { quick?: boolean } = {}): Promise<McpBenchReport> {
  assertBuilt();
  const root = ensureTree();
  const samples = options.quick ? 60 : 400;
  const warmup = options.quick ? 10 : 50;
  const operations = new WorkspaceOperations({ resolveRoot: async (given) => fs.realpathSync(given) });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [QUARRY_BIN, 'mcp', '--root', root],
    env: childEnv({ QUARRY_LOG_LEVEL: 'warn' }) as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'quarry-bench', version: '1' });
  await client.connect(transport);

  const calls: Array<{ tool: 'read_file' | 'search_text'; call: string; args: Record<string, unknown> }> = [
    { tool: 'read_file', call: 'big.ts lines 1,000-1,099', args: { path: 'big.ts', startLine: 1_000, endLine: 1_099 } },
    { tool: 'read_file', call: 'a 20-line file, whole', args: { path: 'src/module3/file3.ts' } },
    { tool: 'search_text', call: `literal "lookUpNeedle", ${num(FILES)} files`, args: { pattern: 'lookUpNeedle', maxResults: 50 } },
    { tool: 'search_text', call: String.raw`regex "needle\d+ =", ${num(FILES)} files`, args: { pattern: String.raw`needle\d+ =`, regex: true, maxResults: 50 } },
  ];
  const rows: McpBenchRow[] = [];
  try {
    for (const { tool, call, args } of calls) {
      const overMcp = async () => {
        const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
        if (result.isError) throw new Error(`${tool} failed over MCP: ${JSON.stringify(result.content)}`);
      };
      const inProcess = () => operations.run(tool, { root, ...args } as never, new AbortController().signal);
      for (let i = 0; i < warmup; i++) {
        await overMcp();
        await inProcess();
      }
      const mcpTimes: number[] = [];
      const libraryTimes: number[] = [];
      for (let i = 0; i < samples; i++) {
        let started = performance.now();
        await overMcp();
        mcpTimes.push(performance.now() - started);
        started = performance.now();
        await inProcess();
        libraryTimes.push(performance.now() - started);
      }
      const mcp = latencyStats(mcpTimes);
      const library = latencyStats(libraryTimes);
      rows.push({ tool, call, mcp, library, overheadP50: mcp.p50 - library.p50 });
    }
  } finally {
    await client.close();
    await closeSharedSearchPool();
  }

  printTable(
    `(x) MCP round trip over stdio vs the same operation in-process, ${samples} samples each (interleaved)`,
    ['tool', 'call', 'MCP p50', 'MCP p99', 'in-process p50', 'in-process p99', 'overhead p50'],
    rows.map((row) => [row.tool, row.call, ms(row.mcp.p50, 2), ms(row.mcp.p99, 2), ms(row.library.p50, 2), ms(row.library.p99, 2), ms(row.overheadP50, 2)]),
    ['MCP: the SDK Client → `node bin/quarry.js mcp` (stdio) → result back, validated against the outputSchema by the client.'],
  );
  return { files: FILES + 1, rows };
}
