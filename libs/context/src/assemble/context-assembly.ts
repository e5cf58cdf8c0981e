import { type TokenCounter, splitLines } from '@quarry/code-index';

/** A span to show: where it is, and what to call it in its header. */
export interface SpanToShow {
  path: string;
  startLine: number;
  endLine: number;
  symbol?: string;
  kind?: string;
  container?: string;
}

export interface AssembledContext {
  text: string;
  /** Exactly the tokens of `text`. */
  tokens: number;
  /** Per span given, in order: `whole`, `cut` (its first lines fitted) or `omitted`. */
  included: ('whole' | 'cut' | 'omitted')[];
  /** The last line shown of a cut span. */
  cutAt?: number;
}

/** A cut span shows at least this many lines, or none. */
const MIN_CUT_LINES = 3;

/**
 * The spans' code in rank order, each as a block — a header `path:start-end (kind name)` and its
 * lines numbered — taken while they fit the budget; the first span that does not fit whole is cut
 * to the most lines that fit, and nothing follows it, so the context fills the budget without
 * passing it. Blocks end with a blank line and begin with a path, which BPE never merges across,
 * so a block's tokens add up exactly; the whole text is counted once more to make sure.
 */
export async function assembleContext(spans: readonly SpanToShow[], budget: number, countTokens: TokenCounter, readText: (path: string) => Promise<string>): Promise<AssembledContext> {
  const included: AssembledContext['included'] = spans.map(() => 'omitted');
  const blocks: { text: string; span: number }[] = [];
  let used = 0;
  let cutAt: number | undefined;
  const texts = new Map<string, Promise<string[]>>();
  const linesOf = (path: string) => {
    let lines = texts.get(path);
    if (lines === undefined) texts.set(path, (lines = readText(path).then(splitLines)));
    return lines;
  };
  for (const [index, span] of spans.entries()) {
    const lines = await linesOf(span.path);
    const endLine = Math.min(span.endLine, lines.length);
    if (endLine < span.startLine) continue;
    const block = renderBlock(span, lines, span.startLine, endLine);
    const tokens = countTokens(block);
    if (used + tokens <= budget) {
      blocks.push({ text: block, span: index });
      used += tokens;
      included[index] = 'whole';
      continue;
    }
    // The most lines of this span that fit, by binary search on exact counts.
    let low = MIN_CUT_LINES;
    let high = endLine - span.startLine;
    let fitted: { block: string; tokens: number; last: number } | undefined;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const last = span.startLine + middle - 1;
      const candidate = renderBlock(span, lines, span.startLine, last, true);
      const candidateTokens = countTokens(candidate);
      if (used + candidateTokens <= budget) {
        fitted = { block: candidate, tokens: candidateTokens, last };
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (fitted !== undefined) {
      blocks.push({ text: fitted.block, span: index });
      used += fitted.tokens;
      included[index] = 'cut';
      cutAt = fitted.last;
      break;
    }
    // Not even a few lines fit (a span of very long lines): a later, smaller span may.
  }
  let text = blocks.map((block) => block.text).join('');
  let tokens = countTokens(text);
  // Should the tokenizer ever merge across blocks, drop blocks from the end until it fits.
  while (tokens > budget && blocks.length > 0) {
    const dropped = blocks.pop()!;
    if (included[dropped.span] === 'cut') cutAt = undefined;
    included[dropped.span] = 'omitted';
    text = blocks.map((block) => block.text).join('');
    tokens = countTokens(text);
  }
  return { text, tokens, included, ...(cutAt === undefined ? {} : { cutAt }) };
}

/** One block: `path:12-30 (method Server.start)`, the numbered lines, a blank line. */
export function renderBlock(span: SpanToShow, lines: readonly string[], startLine: number, endLine: number, cut = false): string {
  const name = span.symbol === undefined ? '' : ` (${span.kind ?? 'definition'} ${span.container ? `${span.container}.` : ''}${span.symbol})`;
  const width = String(endLine).length;
  let block = `${span.path}:${startLine}-${endLine}${name}${cut ? ` [cut: ${span.startLine}-${span.endLine}]` : ''}\n`;
  for (let line = startLine; line <= endLine; line++) block += `${String(line).padStart(width)}│ ${lines[line - 1]}\n`;
  return `${block}\n`;
}
