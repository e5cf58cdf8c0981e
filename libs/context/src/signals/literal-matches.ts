import { MIN_LITERAL_WORDS } from '@quarry/code-index';
import type { ContextCorpus } from '../corpus/context-corpus';
import type { TaskAnalysis } from '../task/task-analysis';
import { SignalScores } from './signal-scores';

const WORD = /[A-Za-z0-9_]+/g;
/** A message matched by more words says more, up to about a sentence. */
const FULL_MATCH_WORDS = 10;
/** A message found only in another program's pasted output (a linter's report lists every message it printed) counts this much. */
const OUTPUT_ONLY = 0.3;

/**
 * Error messages and option names the task quotes, matched against the string literals of the
 * code: a literal matches when its fixed fragments (the text between its `%s` / `{}`
 * placeholders) appear word for word in the task, so `Dimension of "{}" is {}, but it should be {}`
 * matches the task's `Dimension of "v1" is Dimension(velocity), but it should be …`. A message
 * found in many files (`"is not supported"`) weighs less in each.
 */
export function literalMatches(corpus: ContextCorpus, task: TaskAnalysis): SignalScores {
  const scores = new SignalScores('literals');
  const literals = corpus.literals;
  const message = wordIdsOf(literals.wordTable.size, (word) => literals.wordTable.id(word), task.messageText);
  const own = wordIdsOf(literals.wordTable.size, (word) => literals.wordTable.id(word), task.ownText);

  const matched: { file: number; line: number; score: number; key: string }[] = [];
  const { fragmentStart, wordStart, words } = literals;
  for (let literal = 0; literal < literals.count; literal++) {
    let total = 0;
    let found = 0;
    let inOwnText = true;
    for (let fragment = fragmentStart[literal]; fragment < fragmentStart[literal + 1]; fragment++) {
      const length = wordStart[fragment + 1] - wordStart[fragment];
      total += length;
      if (fragmentPresent(words, wordStart[fragment], wordStart[fragment + 1], message)) found += length;
    }
    // Most of the message must be there, and enough words that it is not a chance phrase.
    if (found < MIN_LITERAL_WORDS || found < 0.6 * total) continue;
    for (let fragment = fragmentStart[literal]; fragment < fragmentStart[literal + 1] && inOwnText; fragment++) {
      if (wordStart[fragment + 1] > wordStart[fragment] && !fragmentPresent(words, wordStart[fragment], wordStart[fragment + 1], own)) inOwnText = false;
    }
    const score = (found / total) * Math.min(1, found / FULL_MATCH_WORDS) * (inOwnText ? 1 : OUTPUT_ONLY);
    matched.push({ file: literals.file[literal], line: literals.line[literal], score, key: literals.fragments(literal).map((fragment) => fragment.join(' ')).join(' | ') });
  }
  const filesPerMessage = new Map<string, Set<number>>();
  for (const match of matched) filesPerMessage.set(match.key, (filesPerMessage.get(match.key) ?? new Set()).add(match.file));
  const perFile = new Map<number, number[]>();
  for (const match of matched) {
    const score = match.score / filesPerMessage.get(match.key)!.size;
    perFile.set(match.file, [...(perFile.get(match.file) ?? []), score]);
    const chunk = corpus.chunkAt(match.file, match.line);
    if (chunk !== undefined) scores.addChunk(chunk, score);
    scores.note(match.file, `message "${ellipsis(match.key.replace(/ \| /g, ' … '))}" (line ${match.line})`, score);
  }

  for (const option of task.options) {
    const places = corpus.options.get(option) ?? [];
    // Shared among the source files naming it (tests and docs name every option too).
    const files = new Set(places.filter((place) => corpus.roles[place.file] === 'source').map((place) => place.file));
    if (files.size === 0) for (const place of places) files.add(place.file);
    for (const place of places) {
      const score = 0.8 / files.size;
      perFile.set(place.file, [...(perFile.get(place.file) ?? []), score]);
      const chunk = corpus.chunkAt(place.file, place.line);
      if (chunk !== undefined) scores.addChunk(chunk, score);
      scores.note(place.file, `option ${option} (line ${place.line})`, score);
    }
  }
  // The best match counts whole, more matches in the file a little.
  for (const [file, list] of perFile) {
    list.sort((a, b) => b - a);
    scores.addFile(file, list[0] + 0.25 * Math.min(1, list.slice(1).reduce((sum, score) => sum + score, 0)));
  }
  return scores;
}

/** A text's words (lower-cased) as ids of the literals' words: which occur, and which follow which. Words no literal has are left out. */
interface WordIds {
  unigrams: Uint8Array;
  /** first × wordCount + second. */
  bigrams: Set<number>;
  wordCount: number;
}

function wordIdsOf(wordCount: number, idOf: (word: string) => number, text: string): WordIds {
  const ids = [...text.matchAll(WORD)].map((match) => idOf(match[0].toLowerCase()));
  const unigrams = new Uint8Array(wordCount);
  const bigrams = new Set<number>();
  for (let index = 0; index < ids.length; index++) {
    if (ids[index] !== -1) unigrams[ids[index]] = 1;
    if (index + 1 < ids.length && ids[index] !== -1 && ids[index + 1] !== -1) bigrams.add(ids[index] * wordCount + ids[index + 1]);
  }
  return { unigrams, bigrams, wordCount };
}

/** Whether a fragment (words[from..to-1]) is in the text: its word, or every pair of its consecutive words. */
function fragmentPresent(words: Int32Array, from: number, to: number, text: WordIds): boolean {
  if (to - from === 1) return text.unigrams[words[from]] === 1;
  for (let index = from; index + 1 < to; index++) if (!text.bigrams.has(words[index] * text.wordCount + words[index + 1])) return false;
  return true;
}

function ellipsis(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
