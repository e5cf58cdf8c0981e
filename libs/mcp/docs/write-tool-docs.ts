/**
 * `npm run docs:mcp`: writes docs/mcp-tools.md from the tool table (libs/mcp/src/tool-docs.spec.ts
 * fails while the page in the repository differs from what this writes).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { QUARRY_TOOLS } from '../src/tool-table';
import { TOOL_DOCS_PATH, renderToolDocs } from '../src/tool-docs';

const root = path.resolve(__dirname, '../../../..');
const target = path.join(root, TOOL_DOCS_PATH);
writeFileSync(target, renderToolDocs(QUARRY_TOOLS));
console.log(`wrote ${path.relative(process.cwd(), target) || target}`);
