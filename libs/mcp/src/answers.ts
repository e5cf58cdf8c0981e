/**
 * @quarry/mcp/answers — budgets and cursors without the MCP server: what the gateway's REST reads
 * and the CLI's --json use to answer within a token budget, as the MCP tools do. Loads the token
 * counter and nothing of the tool table.
 */
export { pageSearch } from './search-pages';
export { encodeCursor, decodeCursor, callKey, itemsKey, type AnswerCursor } from './answer-cursor';
