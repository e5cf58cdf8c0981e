import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOOL_DOCS_PATH, renderToolDocs } from './tool-docs';
import { QUARRY_TOOLS } from './tool-table';

describe('docs/mcp-tools.md', () => {
  it('is what the tool table generates (run `npm run docs:mcp` after changing a tool)', () => {
    const page = readFileSync(path.resolve(__dirname, '../../..', TOOL_DOCS_PATH), 'utf8');
    expect(page).toBe(renderToolDocs(QUARRY_TOOLS));
  });

  it('has a section per tool, with its description as the server sends it and every argument', () => {
    const page = renderToolDocs(QUARRY_TOOLS);
    for (const spec of QUARRY_TOOLS) {
      expect(page).toContain(`### ${spec.name}\n`);
      expect(page).toContain(JSON.stringify(spec.example));
      for (const argument of Object.keys(spec.input.shape)) expect(page).toContain(`| \`${argument}\``);
    }
  });
});
