/**
 * @quarry/render — job results as text for people and agents: the CLI prints them, the MCP tools
 * return them as their text content.
 */
export { formatBytes, formatCount } from '@quarry/contracts/format';
export { formatScanSummary } from './scan-summary';
export { formatServices } from './services';
export { formatFetched } from './fetched';
export { formatAnswer } from './answer';
export { formatSymbols, formatMap, formatPack, formatTokenTotals } from './code-index';
export { describeSymbol, formatAlternatives, formatReferences, formatReferencesByFile, formatDefinition, formatCallGraph, formatImports, formatOutline, formatImpact } from './navigation';
export { formatContextSummary } from './context';
