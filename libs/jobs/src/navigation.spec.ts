import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quarry/config';
import { InProcessPorts } from './in-process-ports';
import { navigate } from './navigation';

/** Navigation answers show lines and signatures as read_file does: with credentials redacted. */
describe('navigate', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-navigation-use-case-')));
  const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/config.ts'), `export const apiToken = "${token}";\n`);
  fs.writeFileSync(path.join(root, 'src/client.ts'), `import { apiToken } from "./config";\nexport const headers = { auth: apiToken, fallback: "${token}" };\n`);
  const ports = new InProcessPorts({ ...loadConfig({}, root), workspaceRoots: [root] });
  const run = { id: 'navigation-test', signal: new AbortController().signal, progress: () => undefined };
  afterAll(async () => {
    await ports.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('redacts credentials in the lines of uses and in signatures', async () => {
    const references = await navigate({ root, query: 'references', symbol: 'apiToken' }, await ports.navigation(), run);
    expect(references.references.map((use) => `${use.path}:${use.line}`)).toEqual(['src/client.ts:1', 'src/client.ts:2']);
    expect(references.references[1].text).toContain('auth: apiToken, fallback: "[REDACTED');
    expect(JSON.stringify(references)).not.toContain(token);
    const outline = await navigate({ root, query: 'outline', path: 'src/config.ts' }, await ports.navigation(), run);
    expect(outline.definitions[0].signature).toContain('[REDACTED');
    expect(JSON.stringify(outline)).not.toContain(token);
  });
});
