import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quarry/config';
import type { JobContext } from '../job-handler';
import type { StackDetector } from '../stack-detector';
import { ScanProcessor } from './scan.processor';
import { JobSnapshots } from '../job-snapshots';
import type { ScanShards } from '../scan-shards';
import { MemoryBlobFacts } from '@quarry/blob-scan';
import { MemorySearchIndexStore } from '@quarry/search-index';

describe('ScanProcessor', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-scan-proc-')));
  fs.writeFileSync(path.join(root, 'go.mod'), 'module x\n\ngo 1.22\n');
  fs.writeFileSync(path.join(root, 'main.go'), 'package main\n');
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const config = { ...loadConfig({}, root), workspaceRoots: [root] };
  const snapshots = new JobSnapshots(config);
  afterAll(() => snapshots.onApplicationShutdown());
  const context = (signal = new AbortController().signal): JobContext => ({
    jobId: 'j', attempt: 1, signal, progress: () => undefined, ownerId: null, queueJob: { id: 'j', queue: 'q' },
  });
  /** Only git sources use the queue; these scans are of a directory. */
  const shards = { id: 'test-worker' } as ScanShards;
  const detector = (detect: StackDetector['detect']) => ({ detect }) as StackDetector;

  it('carries the stack the detector found', async () => {
    const services = [{ metadata: { path: '.' } }] as never;
    const result = await new ScanProcessor(snapshots, detector(async () => services), new MemoryBlobFacts(), shards, new MemorySearchIndexStore()).run({ root }, context());
    expect(result.files).toBe(2);
    expect(result.stack).toBe(services);
  });

  it('a detection that fails leaves the scan without a stack instead of failing it', async () => {
    const result = await new ScanProcessor(snapshots, detector(async () => { throw new Error('detector bug'); }), new MemoryBlobFacts(), shards, new MemorySearchIndexStore()).run({ root }, context());
    expect(result.files).toBe(2);
    expect(result).not.toHaveProperty('stack');
  });

  it('a cancelled scan still rejects with the cancellation', async () => {
    const controller = new AbortController();
    const cancelled = new Error('cancelled');
    const slowDetector = detector(() => new Promise((_resolve, reject) => setTimeout(() => reject(cancelled), 10)));
    controller.abort(cancelled);
    await expect(new ScanProcessor(snapshots, slowDetector, new MemoryBlobFacts(), shards, new MemorySearchIndexStore()).run({ root }, context(controller.signal))).rejects.toBe(cancelled);
  });
});
