import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessShardExecutor, MemoryBlobFacts } from '@quarry/blob-scan';
import { snapshotProviderFor } from '@quarry/snapshot';
import { loadConfig } from '@quarry/config';
import type { JobRun } from '../job-run';
import type { ScanPorts, StackDetection } from '../ports';
import { RepositorySessions } from '../repository-sessions';
import { runScan } from './scan';

describe('runScan', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-scan-use-case-')));
  fs.writeFileSync(path.join(root, 'go.mod'), 'module x\n\ngo 1.22\n');
  fs.writeFileSync(path.join(root, 'main.go'), 'package main\n');
  const config = { ...loadConfig({}, root), workspaceRoots: [root] };
  const repositories = new RepositorySessions(snapshotProviderFor(config));
  afterAll(async () => {
    await repositories.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const run = (signal = new AbortController().signal): JobRun => ({ id: 'j', signal, progress: () => undefined });
  const ports = (detect: StackDetection['detect']): ScanPorts => {
    const facts = new MemoryBlobFacts();
    return {
      repositories,
      facts,
      stack: { detect, mode: 'static' },
      shards: { workerId: 'test-worker', executor: (snapshot) => new InProcessShardExecutor(snapshot, facts, 1, 'test-worker') },
    };
  };

  it('carries the stack the detector found', async () => {
    const services = [{ metadata: { path: '.' } }] as never;
    const result = await runScan({ root }, ports(async () => services), run());
    expect(result.files).toBe(2);
    expect(result.stack).toBe(services);
    expect(result.source).toMatchObject({ path: root });
  });

  it('a detection that fails leaves the scan without a stack instead of failing it', async () => {
    const result = await runScan({ root }, ports(async () => {
      throw new Error('detector bug');
    }), run());
    expect(result.files).toBe(2);
    expect(result).not.toHaveProperty('stack');
  });

  it('a cancelled scan still rejects with the cancellation', async () => {
    const controller = new AbortController();
    const cancelled = new Error('cancelled');
    controller.abort(cancelled);
    const slow = () => new Promise<never>((_resolve, reject) => setTimeout(() => reject(cancelled), 10));
    await expect(runScan({ root }, ports(slow), run(controller.signal))).rejects.toBe(cancelled);
  });
});
