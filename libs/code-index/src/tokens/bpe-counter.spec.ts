import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BpeCounter, BpeEncodingName, cl100kPieceEnd, o200kPieceEnd, readSavedVocabulary, saveVocabulary, savedVocabularyFile } from './bpe-counter';

/**
 * Our counter must give exactly gpt-tokenizer's counts (the reference: what Repomix calls), on
 * every text. Checked three ways, for both encodings: the pieces our pre-tokenizer cuts are the
 * split regex's matches, and the counts are gpt-tokenizer's, on (a) every file of this
 * repository, (b) a seeded fuzz of nasty text, (c) Linux `fs/` when the bench tree is there.
 */

interface Reference {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  clearMergeCache(): void;
}

const ENCODINGS: BpeEncodingName[] = ['o200k_base', 'cl100k_base'];
const ORDINARY = { disallowedSpecial: new Set<string>() };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const splitRegexes = require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp; CL100K_TOKEN_SPLIT_REGEX: RegExp };
const references: Record<BpeEncodingName, Reference> = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  o200k_base: require('gpt-tokenizer/cjs/encoding/o200k_base') as Reference,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cl100k_base: require('gpt-tokenizer/cjs/encoding/cl100k_base') as Reference,
};
const counters = Object.fromEntries(ENCODINGS.map((encoding) => [encoding, new BpeCounter(encoding)])) as Record<BpeEncodingName, BpeCounter>;

/** Where our pieces first differ from the regex's matches, or undefined. */
function pieceMismatch(text: string, encoding: BpeEncodingName): string | undefined {
  const pieceEnd = encoding === 'o200k_base' ? o200kPieceEnd : cl100kPieceEnd;
  const regex = encoding === 'o200k_base' ? splitRegexes.O200K_TOKEN_SPLIT_REGEX : splitRegexes.CL100K_TOKEN_SPLIT_REGEX;
  let i = 0;
  for (const match of text.matchAll(regex)) {
    const end = i < text.length ? pieceEnd(text, i, text.length) : i;
    if (match.index !== i || match.index + match[0].length !== end) {
      return `at ${i}: regex ${JSON.stringify(text.slice(match.index, match.index + match[0].length))} (at ${match.index}), ours ${JSON.stringify(text.slice(i, end))} in ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 40))}`;
    }
    i = end;
  }
  return i === text.length ? undefined : `ours continue at ${i} after the regex's last match`;
}

/** Counts ours and the reference's per text; the texts whose counts or pieces differ. */
function compare(texts: readonly { name: string; text: string }[], encoding: BpeEncodingName, pieces = true) {
  const reference = references[encoding];
  const counter = counters[encoding];
  const differences: string[] = [];
  let ours = 0;
  let theirs = 0;
  let since = 0;
  for (const { name, text } of texts) {
    const mine = counter.count(text);
    const expected = reference.countTokens(text, ORDINARY);
    ours += mine;
    theirs += expected;
    if (mine !== expected) differences.push(`${name}: ${mine} tokens, gpt-tokenizer ${expected}`);
    if (pieces) {
      const mismatch = pieceMismatch(text, encoding);
      if (mismatch !== undefined) differences.push(`${name}: pieces differ ${mismatch}`);
    }
    // gpt-tokenizer's cache keys are substrings that keep their file texts alive.
    since += text.length;
    if (since > 4 << 20) {
      reference.clearMergeCache();
      since = 0;
    }
  }
  return { ours, theirs, differences: differences.slice(0, 20), differing: differences.length };
}

/** A file's text as the scan decodes it: UTF-8, invalid bytes as U+FFFD, byte-order mark dropped. */
const decoder = new TextDecoder('utf-8');

function readTexts(root: string, files: readonly string[]): { name: string; text: string }[] {
  return files.map((file) => ({ name: file, text: decoder.decode(fs.readFileSync(path.join(root, file))) }));
}

// A seeded PRNG, so a failure reproduces.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = [
  // ASCII words, cases, contractions, code
  'a', 'the', 'The', 'THE', 'hello', 'World', 'camelCase', 'snake_case', 'XMLHttpRequest', 'iOS', 'x', 'Q',
  "'s", "'S", "'t", "'re", "'RE", "'ve", "'Ve", "'ll", "'LL", "'d", "'m", "'", "''", "don't", "I'M", "they'll", "it's",
  'function', 'return', '=>', '===', '!==', '&&', '||', '::', '->', '/*', '*/', '//', '#include', '<stdio.h>', '{', '}', '(', ')', ';', ',', '.', '...',
  '/', '//', '///', '\\', '"', '`', '$', '@', '#', '%', '^', '&', '*', '-', '+', '=', '~', '|', '<', '>', '?', '!', '[', ']', '_', '__init__',
  // digits and numbers of other scripts
  '0', '1', '12', '123', '1234', '12345', '3.14159', '0x7fffffff', '1e-9', '٣', '۴۵', '१२३', '𝟘𝟙𝟚', 'Ⅻ', '½', '²', '①',
  // whitespace runs and line ends
  ' ', '  ', '   ', '    ', '\t', '\t\t', '\n', '\n\n', '\r\n', '\r', '\r\n\r\n', ' \n', '\n ', '  \n  ', '\v', '\f', '\u00a0', '\u2028', '\u2029', '\u3000', '\u2003', '\u1680', '\u202f', '\u205f', '\ufeff',
  // letters of other scripts, title case, modifier letters, combining marks
  'é', 'e\u0301', '\u0301', '\u0300\u0301', 'Ä', 'ß', 'ǅ', 'ǈ', 'ʰ', 'ª', 'º', 'ー', 'ｶ', 'Привет', 'мир', 'ΑΒΓ', 'αβγ', 'Ωμέγα', 'שלום', 'مرحبا', 'नमस्ते', 'क्षि', 'ไทย', '한국어', '\u1100\u1161',
  '中文', '字符', '日本語', 'ひらがな', 'カタカナ', '漢字テスト', '\u{20000}', '\u{2A6D6}',
  // emoji: surrogate pairs, modifiers, ZWJ sequences, flags, variation selectors
  '😀', '👍🏽', '👨‍👩‍👧‍👦', '🇫🇷', '❤️', '☃', '\u200d', '\ufe0f', '🏳️‍🌈', '\u{1F600}\u{1F601}',
  // lone surrogates and their neighbours
  '\ud800', '\udc00', '\udbff', '\udfff', '\ud83d', '\ude00', '\ufffd', '\uffff',
  // special-token text is ordinary text
  '<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|fim_prefix|>', '<|endofprompt|>', '<|',
  // the byte-order-mark tokens gpt-tokenizer cannot find
  '\ufeffusing', '\ufeff//', '\ufeff#', '\ufeffnamespace', '\ufeff\n', '\ufeff\ufeff', '\ufeff출장안마', '\ufeff名', '名', 'ង',
  // other odd code points
  '\u0000', '\u0001', '\u007f', '\u0085', '\u00ad', '\u200b', '\u2060', '\ue000', '\u{10FFFF}', '\u{E0001}',
];

function fuzzTexts(count: number, seed: number): { name: string; text: string }[] {
  const next = random(seed);
  const texts: { name: string; text: string }[] = [];
  for (let n = 0; n < count; n++) {
    let text = '';
    const mode = next();
    const length = Math.floor(next() * (mode < 0.1 ? 400 : 40));
    for (let k = 0; k < length; k++) {
      if (mode < 0.7) {
        text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
      } else if (mode < 0.85) {
        // Random code units, surrogates included.
        text += String.fromCharCode(Math.floor(next() * 0x10000));
      } else {
        // Random code points from small ranges, so neighbours interact.
        const ranges = [
          [0x20, 0x7f],
          [0x09, 0x0e],
          [0x80, 0x250],
          [0x300, 0x370],
          [0x2000, 0x2070],
          [0x3000, 0x3100],
          [0x4e00, 0x4e40],
          [0xd7f0, 0xe010],
          [0xfe00, 0xff00],
          [0x1f300, 0x1f700],
          [0x1d7ce, 0x1d800],
        ];
        const [low, high] = ranges[Math.floor(next() * ranges.length)];
        text += String.fromCodePoint(low + Math.floor(next() * (high - low)));
      }
    }
    texts.push({ name: `fuzz #${n} (seed ${seed})`, text });
  }
  return texts;
}

function randomPiece(next: () => number, alphabet: string[], size: number): string {
  let text = '';
  while (text.length < size) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

function longPieces(): { name: string; text: string }[] {
  const next = random(7);
  const base64 = Array.from({ length: 6000 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(next() * 64)]).join('');
  const hex = Array.from({ length: 3000 }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('');
  return [
    { name: 'long letters', text: 'a'.repeat(300) + ' ' + 'Ab'.repeat(200) + ' ' + 'é'.repeat(150) },
    { name: 'long punctuation', text: '='.repeat(1000) + '\n' + '/*' + '*'.repeat(500) + '*/\n' + '-'.repeat(77) },
    { name: 'long whitespace', text: ' '.repeat(500) + 'x' + '\t'.repeat(300) + '\n'.repeat(100) + ' \r\n'.repeat(50) + '  ' },
    { name: 'base64', text: base64 },
    { name: 'hex', text: hex },
    { name: 'long CJK', text: '漢字'.repeat(200) },
    { name: 'long emoji', text: '😀'.repeat(100) + '👍🏽'.repeat(50) },
    { name: 'long lone surrogates', text: '\ud800'.repeat(100) + 'a' + '\udc00'.repeat(60) },
    // One piece each, merged with the heap (over 96 bytes): random letters, punctuation, CJK, accents.
    ...['abcde', 'etaoinshrdlu', 'ABCDEFabc', '=-*#/_.,;:!?<>', '的一是不了人我在有他', 'éüßàçñø', '😀👍🏽❤️🇫🇷'].flatMap((alphabet, a) =>
      [100, 300, 1000, 3000].map((size) => ({ name: `long random piece ${a}/${size}`, text: randomPiece(next, [...alphabet], size) })),
    ),
    { name: 'repeated piece cache', text: Array.from({ length: 2000 }, (_, k) => ` btrfs_${k % 37}_inode (sbi->s_${k % 11}); `).join('\n') },
  ];
}

describe('our BPE counter equals gpt-tokenizer', () => {
  it.each(ENCODINGS)('on every file of this repository (%s): pieces and counts', (encoding) => {
    const root = path.resolve(__dirname, '../../../..');
    const files = execFileSync('git', ['-C', root, 'ls-files', '-z'], { encoding: 'utf8', maxBuffer: 1 << 26 })
      .split('\0')
      .filter((file) => file !== '' && fs.statSync(path.join(root, file), { throwIfNoEntry: false })?.isFile());
    expect(files.length).toBeGreaterThan(300);
    const result = compare(readTexts(root, files), encoding);
    expect(result.differences).toEqual([]);
    expect(result.ours).toBe(result.theirs);
  }, 180_000);

  it.each(ENCODINGS)('on a fuzz of letters, digits, whitespace, CJK, emoji, marks, lone surrogates, special-token text (%s)', (encoding) => {
    const texts = [...fuzzTexts(4000, 1), ...fuzzTexts(1000, 2), ...longPieces()];
    const result = compare(texts, encoding);
    expect(result.differences).toEqual([]);
    // And all of it as one text, after the counter's cache has seen its pieces.
    const all = texts.map((entry) => entry.text).join('');
    expect(counters[encoding].count(all)).toBe(references[encoding].countTokens(all, ORDINARY));
  }, 180_000);

  it('counts text after a byte-order mark as gpt-tokenizer does (it drops the mark from some merges)', () => {
    // tiktoken counts '\ufeff名' as 2 tokens; gpt-tokenizer decodes the merged bytes, its TextDecoder
    // drops the leading mark, and it finds '名': 1 token (encode gives [6224], which is '名').
    expect(counters.o200k_base.count('\ufeff名')).toBe(1);
    for (const encoding of ENCODINGS) {
      for (const text of ['\ufeff名', '\ufeffង', '\ufeff名单', 'x\ufeff名稱', '\ufeffusing System;', 'x \ufeff// c', '\ufeff\ufeff#x', 'a\ufeff\n\n', '\ufeff출장안마']) {
        expect([encoding, text, counters[encoding].count(text)]).toEqual([encoding, text, references[encoding].countTokens(text, ORDINARY)]);
      }
    }
  });

  it('empties its cache without changing a count', () => {
    const counter = new BpeCounter('o200k_base');
    const text = fuzzTexts(50, 3).map((entry) => entry.text).join('\n');
    const first = counter.count(text);
    counter.clearCache();
    expect(counter.count(text)).toBe(first);
    expect(first).toBe(references.o200k_base.countTokens(text, ORDINARY));
  });

  const linuxFs = path.join(process.env.QUARRY_BENCH_LINUX ?? path.join(os.homedir(), '.cache/quarry-bench/linux-6.1'), 'fs');
  const onLinux = fs.existsSync(linuxFs) ? it.each(ENCODINGS) : it.skip.each(ENCODINGS);
  onLinux(`on Linux fs/ (${linuxFs}, skipped when absent; %s): counts`, (encoding) => {
    const files = (fs.readdirSync(linuxFs, { recursive: true, withFileTypes: true }) as fs.Dirent[])
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(linuxFs, path.join(entry.parentPath ?? entry.path, entry.name)))
      .sort();
    expect(files.length).toBeGreaterThan(1000);
    // The pieces were checked on this repository and the fuzz; here the counts, file by file.
    const result = compare(readTexts(linuxFs, files), encoding, false);
    expect(result.differences).toEqual([]);
    expect(result.ours).toBe(result.theirs);
  }, 600_000);
});

describe('the native counter (the bpe_count addon: o200k_base, ASCII texts)', () => {
  const javascriptOnly = new BpeCounter('o200k_base', undefined, { native: false });
  const asciiFragments = FRAGMENTS.filter((fragment) => /^[\x00-\x7f]*$/.test(fragment));

  /** ASCII only: fragments, and any code unit below 0x80 (controls, \v, \f, NUL included). */
  function asciiFuzz(count: number, seed: number): string[] {
    const next = random(seed);
    return Array.from({ length: count }, () => {
      let text = '';
      const mode = next();
      const length = Math.floor(next() * (mode < 0.1 ? 600 : 60));
      for (let k = 0; k < length; k++) text += mode < 0.6 ? asciiFragments[Math.floor(next() * asciiFragments.length)] : String.fromCharCode(Math.floor(next() * 0x80));
      return text;
    });
  }

  it('is built and counts ASCII texts; others, and cl100k_base, stay in JavaScript', () => {
    expect(counters.o200k_base.nativeCounting).toBe(true);
    expect(counters.cl100k_base.nativeCounting).toBe(false);
    expect(javascriptOnly.nativeCounting).toBe(false);
  });

  it('equals gpt-tokenizer and the JavaScript counter on an ASCII fuzz and long pieces (merged with the heap past 96 bytes)', () => {
    const texts = [...asciiFuzz(3000, 11), ...longPieces().map((entry) => entry.text).filter((text) => /^[\x00-\x7f]*$/.test(text))];
    texts.push('x'.repeat(20_000), `${'ab'.repeat(5000)}\n${'=-'.repeat(3000)}`, '', 'a', "'", "x's", 'A\'LL', ' \n', '\r\n\r\n ', '  \t x');
    const mismatches: string[] = [];
    for (const text of texts) {
      const native = counters.o200k_base.count(text);
      const expected = references.o200k_base.countTokens(text, ORDINARY);
      if (native !== expected || javascriptOnly.count(text) !== expected) mismatches.push(`${JSON.stringify(text.slice(0, 80))}: native ${native}, gpt-tokenizer ${expected}`);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  }, 180_000);

  it('leaves a text with one character past ASCII to JavaScript, with the same count', () => {
    for (const text of ['abc é', 'x'.repeat(1000) + '😀', '\ud800', '\u0080', 'naïve code']) {
      expect([text, counters.o200k_base.count(text)]).toEqual([text, references.o200k_base.countTokens(text, ORDINARY)]);
    }
  });
});

describe('the tables `npm run build` saves', () => {
  it.each(ENCODINGS)('read back, count as the tables built from the rank list (%s)', (encoding) => {
    const saved = saveVocabulary(encoding);
    const tables = readSavedVocabulary(saved, encoding);
    expect(tables).toBeDefined();
    const fromSaved = new BpeCounter(encoding, tables);
    const texts = [...fuzzTexts(500, 7), ...longPieces()].map((entry) => entry.text);
    texts.push(fs.readFileSync(__filename, 'utf8'));
    for (const text of texts) expect(fromSaved.count(text)).toBe(references[encoding].countTokens(text, ORDINARY));
  });

  it('are not read when built from other rank data, or damaged', () => {
    const saved = saveVocabulary('cl100k_base');
    // The header names the encoding and gpt-tokenizer's version it was built from.
    expect(readSavedVocabulary(saved, 'o200k_base')).toBeUndefined();
    const headerLength = saved.readUInt32LE(0);
    const stale = Buffer.from(saved);
    stale.write(stale.toString('utf8', 8, 8 + headerLength).replace(/gpt-tokenizer \d/, 'gpt-tokenizer 0'), 8);
    expect(readSavedVocabulary(stale, 'cl100k_base')).toBeUndefined();
    expect(readSavedVocabulary(saved.subarray(0, 100), 'cl100k_base')).toBeUndefined();
    expect(readSavedVocabulary(Buffer.alloc(0), 'cl100k_base')).toBeUndefined();
  });

  it('are where the build writes them, beside the compiled module, and the build’s are current', () => {
    expect(savedVocabularyFile('o200k_base')).toBe(path.join(__dirname, 'o200k_base.tables'));
    // `npm test` builds first: the compiled counter must find tables it can read.
    const built = path.resolve(__dirname, '../../../../dist/libs/code-index/src/tokens/o200k_base.tables');
    if (fs.existsSync(built)) expect(readSavedVocabulary(fs.readFileSync(built), 'o200k_base')).toBeDefined();
  });
});
