import { formatBytes } from '@quarry/contracts/format';
import { QuarryError } from '@quarry/contracts';
import { type BodyLine, elisionBound, keepHead, keepHeadAndTail, totalBytes, utf8Bytes } from './body';
import { buildItems, type Item } from './sections';
import type { AugmentInput, AugmentResult, MentionContribution } from './types';
import { waterFill } from './water-fill';

export const DEFAULT_MAX_BYTES = 200_000;
const SEPARATOR = '\n\n';

interface Placed {
  /** Position among the items, for `cut` lines in text order. */
  position: number;
  item: Item;
  fence: string;
  /** Bytes that do not shrink: separator, header, fence lines (or the whole note). */
  fixed: number;
  /** The least the body can shrink to: the elision marker, or the body itself if it is smaller. */
  minimum: number;
  body: BodyLine[];
}

interface CutLine {
  position: number;
  text: string;
}

/**
 * The prompt as written, then one block per loaded mention (in the order the mentions appear, one
 * block per file however many ranges of it were asked for) and a one-line note per failed mention,
 * within `maxBytes` UTF-8 bytes. Pure and deterministic: the same input gives the same output.
 *
 * The budget: nothing is cut if everything fits. Otherwise whole bodies (whole files, listings,
 * search results, pages) shrink first, sharing the room fairly (small ones stay whole, large ones
 * get equal shares) and keeping their head and tail; requested line ranges shrink only once whole
 * bodies are down to their elision marker. If even headers and markers do not fit, blocks are left
 * out from the end. Each cut adds a line to `cut`.
 */
export function augmentPrompt(input: AugmentInput): AugmentResult {
  if (input.outcomes.length !== input.mentions.length) {
    throw new QuarryError('internal', `augmentPrompt needs one outcome per mention; got ${input.outcomes.length} for ${input.mentions.length}`);
  }
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_BYTES;
  const promptBytes = utf8Bytes(input.prompt);
  const cut: CutLine[] = [];
  const placed = buildItems(input).map(place);
  const kept = leaveOutFromTheEnd(placed, maxBytes - promptBytes, maxBytes, cut);
  const room = maxBytes - promptBytes - kept.reduce((sum, item) => sum + item.fixed, 0);
  fitBodies(kept, room, maxBytes, cut);
  const augmentedPrompt = input.prompt + kept.map((item) => SEPARATOR + render(item)).join('');
  const bytes = utf8Bytes(augmentedPrompt);
  return {
    augmentedPrompt,
    cut: cut.sort((a, b) => a.position - b.position).map((line) => line.text),
    bytes,
    estimatedTokens: Math.ceil(bytes / 4),
    perMention: credit(kept, input.mentions.length),
  };
}

function place(item: Item, position: number): Placed {
  if (item.kind === 'note') return { position, item, fence: '', fixed: utf8Bytes(SEPARATOR + item.note.text), minimum: 0, body: [] };
  const { header, tag, body } = item.section;
  const fence = fenceFor(body);
  const fixed = utf8Bytes(`${SEPARATOR}${header}\n${fence}${tag}\n${fence}`);
  return { position, item, fence, fixed, minimum: Math.min(totalBytes(body), elisionBound(body)), body };
}

/** A backtick fence longer than any backtick run in the body, so the body cannot close it early. */
function fenceFor(body: readonly BodyLine[]): string {
  let longest = 0;
  for (const { text } of body) {
    if (!text.includes('`')) continue;
    for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

function render(item: Placed): string {
  if (item.item.kind === 'note') return item.item.note.text;
  const { header, tag } = item.item.section;
  return `${header}\n${item.fence}${tag}\n${item.body.map((line) => `${line.text}\n`).join('')}${item.fence}`;
}

/** Keeps items from the start while their headers, notes and smallest bodies fit in `room`. */
function leaveOutFromTheEnd(placed: readonly Placed[], room: number, maxBytes: number, cut: CutLine[]): Placed[] {
  const kept = [...placed];
  let needed = kept.reduce((sum, item) => sum + item.fixed + item.minimum, 0);
  if (room < 0 && kept.length > 0) {
    cut.push({ position: -1, text: `The prompt alone is ${formatBytes(maxBytes - room)}, over the ${formatBytes(maxBytes)} budget: no context was added` });
  }
  while (kept.length > 0 && needed > room) {
    const dropped = kept.pop() as Placed;
    needed -= dropped.fixed + dropped.minimum;
    if (room >= 0) cut.push({ position: dropped.position, text: `${labelOf(dropped)}: left out, ${dropped.item.kind === 'block' ? 'its header does' : 'it does'} not fit the ${formatBytes(maxBytes)} budget` });
  }
  return kept;
}

function fitBodies(kept: readonly Placed[], room: number, maxBytes: number, cut: CutLine[]): void {
  const blocks = kept.filter((item) => item.item.kind === 'block');
  const size = (items: readonly Placed[]) => items.reduce((sum, item) => sum + totalBytes(item.body), 0);
  if (size(blocks) <= room) return;
  const whole = blocks.filter((item) => item.item.kind === 'block' && item.item.section.shrinksFirst);
  const ranges = blocks.filter((item) => !whole.includes(item));
  const wholeMinimum = whole.reduce((sum, item) => sum + item.minimum, 0);
  if (size(ranges) + wholeMinimum <= room) {
    shrink(whole, room - size(ranges), maxBytes, cut);
  } else {
    shrink(whole, wholeMinimum, maxBytes, cut);
    shrink(ranges, room - wholeMinimum, maxBytes, cut);
  }
}

function shrink(items: readonly Placed[], room: number, maxBytes: number, cut: CutLine[]): void {
  const sizes = items.map((item) => totalBytes(item.body));
  const shares = waterFill(
    sizes,
    items.map((item) => item.minimum),
    room,
  );
  items.forEach((item, index) => {
    if (shares[index] >= sizes[index]) return;
    const ranked = item.item.kind === 'block' && item.item.section.ranked === true;
    item.body = ranked ? keepHead(item.body, shares[index]) : keepHeadAndTail(item.body, shares[index]);
    const after = totalBytes(item.body);
    const kept = item.body.some((line) => line.line !== undefined) ? (ranked ? 'the best-ranked part kept' : 'head and tail kept') : 'all lines elided';
    cut.push({ position: item.position, text: `${labelOf(item)}: ${formatBytes(sizes[index])} → ${formatBytes(after)} (${kept}) to fit the ${formatBytes(maxBytes)} budget` });
  });
}

function labelOf(item: Placed): string {
  return item.item.kind === 'block' ? item.item.section.label : `The note on ${item.item.note.label}`;
}

/** What each mention contributed: the kept lines of its block that it asked for. */
function credit(kept: readonly Placed[], mentionCount: number): MentionContribution[] {
  const contributions = Array.from({ length: mentionCount }, () => ({ bytes: 0, lines: 0 }));
  for (const item of kept) {
    if (item.item.kind !== 'block') continue;
    for (const { mention, first, last } of item.item.section.credits) {
      for (const line of item.body) {
        if (line.line === undefined || line.line < first || line.line > last) continue;
        contributions[mention].bytes += line.bytes;
        contributions[mention].lines++;
      }
    }
  }
  return contributions;
}

