import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '@quarry/code-index/tokens';
import { QuarryError, type IndexState, type PageInfo } from '@quarry/contracts';
import { encodeCursor, itemsKey, staleCursor, type AnswerCursor } from './answer-cursor';
import { toolSuccess, type ToolOutput } from './tool-result';

/*
 * One mechanism for every tool whose answer can outgrow an agent's window: the tool says what its
 * items are (lines, matches, entries, definitions…) and how a page of them reads; this cuts the
 * answer at an item so that the whole result — text and structuredContent, as serialized — fits
 * the budget in real o200k tokens, says what it left out, and hands out the cursor that
 * continues exactly there.
 */

/** The items a page holds, and where they sit in the whole. */
export interface PageSlice<Item> {
  items: Item[];
  /** 1-based ordinal of the first item (0 when the page is empty). */
  first: number;
  /** Ordinal of the last item (0 when the page is empty). */
  last: number;
  /** Items in all, when known. */
  total?: number;
  /** Items follow this page. */
  more: boolean;
}

interface PagedBase<Item> {
  readonly paged: true;
  /** What one item is, singular: "line", "match", "entry", "definition". */
  unit: string;
  /** Items in all, when known. */
  total?: number;
  /** The answer holding exactly these items: text for the agent, data for the outputSchema. */
  build(slice: PageSlice<Item>): ToolOutput;
  /** The text one item adds, for estimating its cost (default: none; its JSON counts twice). */
  textOf?(item: Item): string;
  /** What the rest past a page is, e.g. "lines 401-52,310 (2.9 MB)" (default: "2,295 more matches"). */
  describeRest?(slice: PageSlice<Item>): string | undefined;
  /** The job whose result this is (linked as a resource; a continuation reads it back when it is still kept). */
  jobId?: string;
  /** For a git URL: the commit read, which every later page reads too. */
  commit?: string;
}

/**
 * A sequence counted from its first item: a page starts at an ordinal, and the items before it
 * are its identity (a continuation that finds other items there is stale). Search hits, listings,
 * definitions, a document's lines.
 */
export interface ListAnswer<Item> extends PagedBase<Item> {
  readonly kind: 'list';
  /** From the first item on, at least as far as a page from the cursor's ordinal can reach. */
  items: readonly Item[];
  /** At most this many items a page, whatever the budget allows (a tool's maxResults). */
  perPage?: number;
}

/**
 * Items from a position on whose identity is the content's version, not the items before them:
 * a file's lines read from the cursor's line (with no need to read what came before).
 */
export interface StreamAnswer<Item> extends PagedBase<Item> {
  readonly kind: 'stream';
  /** From the requested position on: as many as one page can hold, or all that is left. */
  items: readonly Item[];
  /** Items exist after the last of `items` (not read for this page). */
  moreAfter: boolean;
  /** The 1-based ordinal of an item in the whole (a line number: the pieces of one long line share it). */
  ordinalOf(item: Item): number;
  /** The position of the page that follows this item (what the cursor holds). */
  positionAfter(item: Item): unknown;
  /** The content's identity: a file's blob id, a commit and path. */
  version: string;
}

export type PagedAnswer<Item = unknown> = ListAnswer<Item> | StreamAnswer<Item>;

export function isPagedAnswer(output: ToolOutput | PagedAnswer): output is PagedAnswer {
  return (output as PagedAnswer).paged === true;
}

export interface PageContext {
  tool: string;
  /** callKey of the arguments. */
  call: string;
  /** The answer's budget in tokens. */
  maxTokens: number;
  /** The cursor the call continues, already checked to belong to this tool and these arguments. */
  cursor?: AnswerCursor;
  /** What the answer read, as every repository-reading answer says. */
  index?: IndexState;
  /** The call's arguments (cursor and maxTokens aside), carried by the cursor when short. */
  args?: Record<string, unknown>;
}

/** Counted as a client receives it: the whole result, text and structuredContent, as JSON. */
export function answerTokens(result: CallToolResult): number {
  return countTokens(JSON.stringify(result));
}

/** The ordinal a list page starts at: 0, or the cursor's, checked against the items before it. */
export function listStart(answer: ListAnswer<unknown>, context: PageContext): number {
  const cursor = context.cursor;
  if (!cursor) return 0;
  const at = cursor.at;
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) throw staleCursor(context.tool, 'answer');
  const available = answer.total ?? answer.items.length;
  if (at > available || at > answer.items.length || itemsKey(answer.items.slice(0, at)) !== cursor.version) throw staleCursor(context.tool, 'answer');
  return at;
}

/** The items a page may take from, and where they sit. */
interface Window<Item> {
  candidates: readonly Item[];
  ordinal(index: number): number;
  total?: number;
  /** Items exist past the candidates. */
  moreAfter: boolean;
}

function windowOf<Item>(answer: PagedAnswer<Item>, context: PageContext): Window<Item> {
  if (answer.kind === 'stream') {
    if (context.cursor && context.cursor.version !== answer.version) throw staleCursor(context.tool, 'content');
    return { candidates: answer.items, ordinal: (index) => answer.ordinalOf(answer.items[index]), total: answer.total, moreAfter: answer.moreAfter };
  }
  const start = listStart(answer as ListAnswer<unknown>, context);
  const candidates = answer.items.slice(start, answer.perPage === undefined ? undefined : start + answer.perPage);
  const total = answer.total ?? answer.items.length;
  return { candidates, ordinal: (index) => start + index + 1, total, moreAfter: start + candidates.length < total };
}

/**
 * The page of `answer` that fits `context.maxTokens`: as many items as fit (at least one, or a
 * typed error when even one cannot), the rest described, and `nextCursor` when items follow.
 */
export function fitPage<Item>(answer: PagedAnswer<Item>, context: PageContext): CallToolResult {
  const window = windowOf(answer, context);
  const { candidates, total } = window;

  const assemble = (count: number, tokens: number): { result: CallToolResult; tokens: number } => {
    const items = candidates.slice(0, count);
    const slice: PageSlice<Item> = {
      items,
      first: count ? window.ordinal(0) : 0,
      last: count ? window.ordinal(count - 1) : 0,
      total,
      more: count < candidates.length || window.moreAfter,
    };
    const built = answer.build(slice);
    const cursor = slice.more ? encodeCursor(nextCursor(answer, context, items)) : undefined;
    const shownUpTo = count ? slice.last : candidates.length ? window.ordinal(0) - 1 : 0;
    const left = total !== undefined ? Math.max(0, total - shownUpTo) : undefined;
    const page: PageInfo = {
      unit: answer.unit,
      first: slice.first,
      last: slice.last,
      ...(total !== undefined ? { total } : {}),
      ...(left !== undefined ? { left } : {}),
      tokens,
      maxTokens: context.maxTokens,
    };
    const texts = Array.isArray(built.text) ? [...built.text] : [built.text];
    if (cursor) texts[texts.length - 1] += `\n${restNote(answer, slice, left, context.tool, cursor)}`;
    const structured = { ...built.structured, ...(context.index ? { index: context.index } : {}), page, ...(cursor ? { nextCursor: cursor } : {}) };
    const result = toolSuccess({ text: texts, structured, jobId: built.jobId ?? answer.jobId });
    return { result, tokens: answerTokens(result) };
  };

  const costs = candidates.map((item) => {
    const json = countTokens(JSON.stringify(item));
    return json + (answer.textOf ? countTokens(answer.textOf(item)) : json) + 2;
  });
  return fitCount(costs, context.maxTokens, answer.unit, (count, tokens) => assemble(count, tokens)).result;
}

/**
 * The most items (of those whose estimated costs are given, in order) an answer can hold within
 * `maxTokens`, with the answer: estimate, then measure the real answer (`assemble`, which reports
 * its own size, so it is measured with the number in it) and give items back until it fits —
 * estimates of pieces miss how they join. At least one item, or budget_invalid.
 */
export function fitCount<R>(costs: readonly number[], maxTokens: number, unit: string, assemble: (count: number, tokens: number) => { result: R; tokens: number }): { result: R; count: number } {
  const frame = assemble(0, 0).tokens;
  let count = 0;
  for (let spent = frame; count < costs.length && spent + costs[count] <= maxTokens; count++) spent += costs[count];
  if (count === 0 && costs.length > 0) count = 1; // measured below: it may fit after all
  for (;;) {
    let attempt = assemble(count, 0);
    attempt = assemble(count, attempt.tokens);
    attempt = assemble(count, attempt.tokens);
    if (attempt.tokens <= maxTokens) return { result: attempt.result, count };
    if (count <= 1) {
      throw new QuarryError('budget_invalid', `maxTokens ${maxTokens} cannot hold ${count ? `even one ${unit} of this answer` : 'this answer'} (${attempt.tokens} tokens).`, {
        suggestion: `Ask for maxTokens ${roundUp(attempt.tokens)} or more (at most 24,000).`,
      });
    }
    const over = attempt.tokens - maxTokens;
    const average = costs.slice(0, count).reduce((sum, cost) => sum + cost, 0) / count;
    count = Math.max(1, count - Math.max(1, Math.ceil(over / Math.max(1, average))));
  }
}

function nextCursor<Item>(answer: PagedAnswer<Item>, context: PageContext, items: readonly Item[]): AnswerCursor {
  const common = {
    tool: context.tool,
    call: context.call,
    ...(answer.jobId ? { job: answer.jobId } : {}),
    ...(answer.commit ? { commit: answer.commit } : {}),
    ...(context.args ? { args: context.args } : {}),
  };
  if (answer.kind === 'list') {
    const end = (typeof context.cursor?.at === 'number' ? context.cursor.at : 0) + items.length;
    return { ...common, at: end, version: itemsKey(answer.items.slice(0, end)) };
  }
  const at = items.length ? answer.positionAfter(items[items.length - 1]) : (context.cursor?.at ?? null);
  return { ...common, at, version: answer.version };
}

function restNote<Item>(answer: PagedAnswer<Item>, slice: PageSlice<Item>, left: number | undefined, tool: string, cursor: string): string {
  const rest = answer.describeRest?.(slice) ?? (left !== undefined ? `${left.toLocaleString('en-US')} more ${plural(answer.unit, left)}` : `more ${plural(answer.unit, 2)} follow`);
  const shown = slice.items.length ? `${plural(answer.unit, 2)} ${slice.first.toLocaleString('en-US')}-${slice.last.toLocaleString('en-US')}${slice.total !== undefined ? ` of ${slice.total.toLocaleString('en-US')}` : ''} shown` : `no ${plural(answer.unit, 2)} shown`;
  return `(${shown}; left out: ${rest}. To continue, call ${tool} again with the same arguments and "cursor": "${cursor}")`;
}

function plural(unit: string, count: number): string {
  if (count === 1) return unit;
  if (/(s|x|ch|sh)$/.test(unit)) return `${unit}es`;
  if (/[^aeiou]y$/.test(unit)) return `${unit.slice(0, -1)}ies`;
  return `${unit}s`;
}

function roundUp(tokens: number): number {
  return Math.ceil(tokens / 500) * 500;
}

/**
 * An answer with no pages (a scan's summary, a pack's totals, an ask's plan and outputs) with the
 * index state added. Such answers are small by design; one that outgrows the budget anyway (a
 * monorepo with hundreds of services, an ask step that read a whole file) is shortened, its
 * longest list or its text halved until it fits, and says so: the whole result stays in the job.
 */
export function fitWhole(output: ToolOutput, context: PageContext): CallToolResult {
  const structured: Record<string, unknown> = structuredClone({ ...output.structured, ...(context.index ? { index: context.index } : {}) });
  let texts = Array.isArray(output.text) ? [...output.text] : [output.text];
  const cuts: string[] = [];
  const assemble = () => {
    const note = cuts.length
      ? `\n(cut to fit maxTokens ${context.maxTokens}: ${cuts.join('; ')}${output.jobId ? `; the whole result is the job's, quarry://jobs/${output.jobId}` : ''})`
      : '';
    const shown = [...texts];
    shown[shown.length - 1] += note;
    return toolSuccess({ text: shown, structured, jobId: output.jobId });
  };
  let result = assemble();
  for (let round = 0; answerTokens(result) > context.maxTokens; round++) {
    if (round > 200) throw new Error(`${context.tool}: an answer that cannot be cut to ${context.maxTokens} tokens`);
    const textTokens = countTokens(texts.join('\n'));
    const longest = longestList(structured);
    if (longest && countTokens(JSON.stringify(longest.list)) >= textTokens) {
      const kept = Math.floor(longest.list.length / 2);
      cuts.push(`${longest.path} ${longest.list.length} → ${kept}`);
      longest.list.splice(kept);
    } else {
      const lines = texts.join('\n').split('\n');
      const kept = Math.floor(lines.length / 2);
      if (kept === 0) throw new Error(`${context.tool}: an answer that cannot be cut to ${context.maxTokens} tokens`);
      cuts.push(`text ${lines.length} → ${kept} lines`);
      texts = [lines.slice(0, kept).join('\n')];
    }
    result = assemble();
  }
  return result;
}

/** The array in `value` whose JSON is the longest, and where it is (`services`, `results[0].output`). */
function longestList(value: unknown, path = ''): { list: unknown[]; path: string } | undefined {
  let best: { list: unknown[]; path: string; size: number } | undefined;
  const visit = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      const size = JSON.stringify(node).length;
      // A tuple (a span's [start, end]) is not a list to shorten.
      const tuple = node.every((item) => typeof item === 'number');
      if (node.length > 1 && !tuple && (!best || size > best.size)) best = { list: node, path: at, size };
      node.forEach((item, index) => visit(item, `${at}[${index}]`));
    } else if (node && typeof node === 'object') {
      for (const [key, inner] of Object.entries(node)) visit(inner, at ? `${at}.${key}` : key);
    }
  };
  visit(value, path);
  return best && { list: best.list, path: best.path };
}
