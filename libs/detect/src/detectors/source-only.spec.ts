import { detectFixture, detectOne, removeFixtures } from '../testing/fixture';
import { SOURCE_CONFIDENCE } from './source-only';

afterAll(removeFixtures);

describe('directories with sources but no manifest', () => {
  it.each([
    ['a lone main.go', { 'main.go': 'package main' }, { language: 'go', build_system: 'go' }, './app'],
    ['index.php', { 'index.php': '<?php echo 1;' }, { language: 'php', build_system: 'none' }, 'php -S 0.0.0.0:8080 -t .'],
    ['public/index.php', { 'public/index.php': '<?php', 'README.md': '' }, { language: 'php', build_system: 'none' }, 'php -S 0.0.0.0:8080 -t public'],
    ['main.py + .python-version', { 'main.py': 'print(1)', '.python-version': '3.12\n' }, { language: 'python', build_system: 'none' }, 'python main.py'],
    ['server.js', { 'server.js': '', 'util.js': '' }, { language: 'javascript', build_system: 'none' }, 'node server.js'],
    ['start.sh', { 'start.sh': '#!/bin/sh', 'helper.sh': '' }, { language: 'shell', build_system: 'none' }, 'bash start.sh'],
    ['COBOL', { 'hello.cob': '' }, { language: 'cobol', build_system: 'none' }, './app'],
    ['a static index.html', { 'index.html': '<h1>hi</h1>', 'style.css': '' }, { language: 'html', build_system: 'none' }, undefined],
  ])('%s', async (_name, files, metadata, start) => {
    const build = await detectOne(files);
    expect(build.metadata).toMatchObject({ ...metadata, confidence: SOURCE_CONFIDENCE });
    expect(build.metadata.confidence).toBeLessThan(1);
    expect(build.metadata.warnings.some((warning) => warning.startsWith('no manifest:'))).toBe(true);
    expect(build.runtime.command).toBe(start);
  });

  it('a Python version file pins the runtime of a manifest-less script; a Procfile wins over the convention', async () => {
    const build = await detectOne({ 'app.py': '', '.python-version': '3.11\n', Procfile: 'web: gunicorn app:app\n' });
    expect(build.runtime).toMatchObject({ name: 'python', version: { requested: '3.11', source: '.python-version' }, command: 'gunicorn app:app' });
  });

  it('a Deno project with only deno.json and main.ts', async () => {
    const build = await detectOne({ 'deno.json': '{}', 'main.ts': '' });
    expect(build.metadata).toMatchObject({ language: 'typescript', build_system: 'deno', confidence: 1 });
    expect(build.runtime.command).toBe('deno run --allow-net --allow-env --allow-read main.ts');
  });

  it('sources never compete with a manifest: scripts/deploy.sh beside a Go service is not a service', async () => {
    const builds = await detectFixture({ 'api/go.mod': 'module api\n', 'api/main.go': '', 'deploy/run.sh': '', 'site/index.html': '' });
    expect(builds.map((build) => build.metadata.path)).toEqual(['api']);
  });

  it('without any manifest, the shallowest source folders are the services', async () => {
    const builds = await detectFixture({ 'README.md': '', 'backend/main.py': '', 'frontend/index.html': '' });
    expect(builds.map((build) => [build.metadata.path, build.metadata.language])).toEqual([['backend', 'python'], ['frontend', 'html']]);
  });
});

describe('static-site generators', () => {
  it.each([
    ['Hugo', { 'hugo.toml': 'baseURL = "/"', 'content/_index.md': '' }, 'hugo'],
    ['Hugo (config.toml + layouts)', { 'config.toml': 'baseURL = "/"', 'layouts/index.html': '', 'package.json': '{"devDependencies":{"cypress":"13"}}' }, 'hugo'],
    ['Zola', { 'config.toml': 'base_url = "/"', 'templates/index.html': '', 'content/_index.md': '' }, 'zola'],
    ['Jekyll without a Gemfile', { '_config.yml': 'title: x', '_posts/2024-01-01-hi.md': '' }, 'jekyll'],
  ])('%s', async (_name, files, generator) => {
    const build = await detectOne(files);
    expect(build.metadata).toMatchObject({ language: 'html', build_system: generator, framework: generator });
  });
});
