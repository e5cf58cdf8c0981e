import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const file = path.join(__dirname, '..', '..', 'docker-compose.yml');

describe('docker-compose.yml', () => {
  const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });

  it('runs redis, postgres, the gateway and a scalable worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'postgres', 'redis', 'worker']);
    // A service with a fixed name or host port cannot be scaled.
    expect(compose.services.worker.container_name).toBeUndefined();
    expect(compose.services.worker.ports).toBeUndefined();
    expect(compose.services.worker.command).toEqual(['worker']);
    expect(compose.services.gateway.command).toEqual(['gateway']);
    expect(compose.services.gateway.ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('points every Quarry process at the same engines and workspace', () => {
    for (const name of ['gateway', 'worker']) {
      const env = compose.services[name].environment;
      expect(env.QUARRY_DATABASE_URL).toContain('@postgres:5432/quarry');
      expect(env.QUARRY_REDIS_URL).toBe('redis://redis:6379');
      expect(env.QUARRY_WORKSPACE_ROOTS).toBe('/workspace');
    }
  });

  it('starts workers with the recommended memory settings (README, "Worker memory")', () => {
    const env = compose.services.worker.environment;
    expect(env.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
    expect(env.NODE_OPTIONS).toMatch(/--max-semi-space-size=4\b/);
    expect(env.MALLOC_ARENA_MAX).toBe('2');
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe('65536');
  });

  // Checked by Compose itself where a Compose CLI is installed (the plugin or the standalone tool).
  const cli = ['docker compose', 'docker-compose'].find((command) => {
    const [bin, ...args] = command.split(' ');
    return spawnSync(bin, [...args, 'version'], { stdio: 'ignore' }).status === 0;
  });
  (cli ? it : it.skip)(`passes \`${cli ?? 'docker compose'} config\``, () => {
    const [bin, ...args] = cli!.split(' ');
    const run = spawnSync(bin, [...args, '-f', file, 'config', '-q'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
