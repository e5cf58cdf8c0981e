/**
 * The binary rule, one for all of Quarry (git's, `buffer_is_binary`): a file whose first 8,000
 * bytes hold a NUL is binary, whatever else it holds; anything else is text in whatever encoding
 * (a Latin-1 `café` is text, as it is to git and ripgrep). Scans count binary files as skipped,
 * reads refuse them, the code index gives them no tokens and no symbols, pack leaves their content
 * out, searches skip them.
 *
 * The search adds ripgrep's rule for the files it matches: one with matches and a NUL anywhere
 * past the first 8,000 bytes is skipped as binary too (`rg -c` counts nothing in it), so counts
 * equal ripgrep's (see @quarry/search's search-worker.ts and @quarry/search-index's segments).
 *
 * A module of its own (`@quarry/workspace/binary`), so the search and shard threads load nothing else.
 */
export const BINARY_SNIFF_BYTES = 8000;

/** Whether `bytes` (of which the first `length` are the file's) are binary by the rule above. */
export function isBinaryContent(bytes: Uint8Array, length = bytes.length): boolean {
  return bytes.subarray(0, Math.min(length, BINARY_SNIFF_BYTES)).includes(0);
}
