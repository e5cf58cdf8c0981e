/**
 * C without parsing what needs no parse. A C file's function bodies (57% of Linux `fs/`) and
 * top-level initializers (`= { … }`, 10%) hold no definition a C index keeps, only the names they
 * use; tree-sitter spends most of its time on them, and a walk of their nodes most of the rest.
 * `scanCBodies` finds them with a lexer (comments, strings, character literals and directives
 * skipped, braces counted) and lists the names inside, as tree-sitter's leaves would give them:
 *
 *   - identifiers that are not keywords (tree-sitter-c 0.24's, from its grammar);
 *   - not a member's name (`a.b`, `a->b`, `.b =`, `b:` in an initializer) nor a label (`out:`,
 *     `goto out`), which the grammar makes `field_identifier` and `statement_identifier`, nor the
 *     member of `offsetof(T, member)`;
 *   - called when `(` follows (a call, or a macro used like one), as the `function` of a
 *     `call_expression`;
 *   - in `#if`/`#elif` conditions and `#ifdef`/`#ifndef` names too; nothing of other directives.
 *
 * The extractor then parses the file with those regions left out (tree-sitter's included ranges:
 * the parser sees `int f(void) {}`, every offset and position unchanged) and merges the names in.
 * A body is parsed after all (its region dropped) when it may define something: a `struct`,
 * `union` or `enum` with a body, a `typedef`, a `#define` or an `#include`. A file is parsed whole
 * (undefined) when its braces do not add up: a conditional whose branches open or close braces
 * differently, a brace closed that never opened, a body still open at the end.
 *
 * `fast-path.spec.ts` compares the result with the whole parse's on real files.
 */
import type { Range } from 'web-tree-sitter';

export interface CBodies {
  /** Inner ranges of the braces left out, flat `[start, end, …]`, in order (UTF-16 offsets). */
  regions: number[];
  /** Per region: where its head starts (after the `;` or `}` that ended what came before at the top level). */
  heads: number[];
  /** The names in them, in document order. */
  names: string[];
  /** Per name: its start offset and whether it is called, flat `[start, called (0/1), …]`. */
  positions: number[];
}

/** Words tree-sitter-c lexes as keywords (anonymous tokens, `primitive_type`, `true`, `false`, `null`), never as identifiers. */
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'FALSE NULL TRUE _Alignas _Alignof _Atomic _Generic _Nonnull _Noreturn __alignof __alignof__ __asm __asm__ __attribute __attribute__ ' +
    '__based __cdecl __clrcall __declspec __except __extension__ __fastcall __finally __forceinline __inline __inline__ __leave __restrict ' +
    '__restrict__ __sptr __stdcall __thiscall __thread __try __unaligned __uptr __vectorcall __volatile__ _alignof _unaligned alignas alignof ' +
    'asm auto bool break case char char16_t char32_t char64_t char8_t charptr_t const constexpr continue default do double else enum ' +
    'extern false float for goto if inline int int16_t int32_t int64_t int8_t intptr_t long max_align_t noreturn nullptr nullptr_t offsetof ' +
    'ptrdiff_t register restrict return short signed size_t sizeof ssize_t static struct switch thread_local true typedef uint16_t uint32_t ' +
    'uint64_t uint8_t uintptr_t union unsigned void volatile while'
  ).split(' '),
);

/**
 * Keywords that may begin an expression. Any other keyword where a macro's argument begins
 * (`container_of(p, struct foo, member)`, `min_t(unsigned int, a, b)`) is no token the grammar
 * expects there, and tree-sitter reads it as an identifier: so do we, and the keywords after it.
 */
const EXPRESSION_KEYWORDS: ReadonlySet<string> = new Set(['sizeof', 'offsetof', '_Generic', '_Alignof', '__alignof__', '__alignof', '_alignof', 'alignof', '__extension__', 'true', 'false', 'TRUE', 'FALSE', 'NULL', 'nullptr', '__asm__', '__asm', 'asm']);

/** Before a `name(…)`, these make it a declaration (`static DEFINE_MUTEX(lock);`): the name is a type, not called. */
const DECLARING_KEYWORDS: ReadonlySet<string> = new Set(['static', 'extern', 'register', 'auto', '__thread', 'thread_local', 'const', 'volatile', 'inline', '__inline', '__inline__']);

/** Keywords whose parentheses hold an attribute, not a function's parameters. */
const ATTRIBUTE_KEYWORDS: ReadonlySet<string> = new Set(['__attribute__', '__attribute', '__declspec', 'alignas', '_Alignas', '__asm__', '__asm', 'asm']);

// What came before, as far as the rules need it.
const NONE = 0;
const NAME = 1;
const KEYWORD = 2;
const LITERAL = 3;
/** `.` or `->`: a member's name follows. */
const MEMBER = 4;
const GOTO = 5;
/** `;`, `{`, `}` or `:` (or `,` in an initializer): a label or an initializer's `member:` may follow. */
const BOUNDARY = 6;
const OPEN_PAREN = 7;
const CLOSE_PAREN = 8;
const EQUALS = 9;
const OTHER = 10;
/** A `)` that closed an attribute's parentheses. */
const ATTRIBUTE = 11;
const COMMA = 12;
/** A keyword read as a name (in a macro's arguments). */
const KEYWORD_NAME = 13;
const STRING = 14;

const enum Char {
  Tab = 9,
  Newline = 10,
  Return = 13,
  Space = 32,
  Quote = 34,
  Hash = 35,
  Dollar = 36,
  Apostrophe = 39,
  OpenParen = 40,
  CloseParen = 41,
  Star = 42,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  Semicolon = 59,
  Equals = 61,
  Question = 63,
  Greater = 62,
  Upper = 65,
  UpperE = 69,
  UpperP = 80,
  UpperZ = 90,
  Backslash = 92,
  Underscore = 95,
  Lower = 97,
  LowerE = 101,
  LowerP = 112,
  LowerZ = 122,
  OpenBrace = 123,
  CloseBrace = 125,
}

function isNameChar(code: number): boolean {
  return (code >= Char.Lower && code <= Char.LowerZ) || (code >= Char.Upper && code <= Char.UpperZ) || code === Char.Underscore || (code >= Char.Zero && code <= Char.Nine) || code === Char.Dollar;
}

/**
 * The regions of `text` (C) tree-sitter need not parse and the names in them; undefined when
 * there are none or the file is irregular (parse it whole).
 */
export function scanCBodies(text: string): CBodies | undefined {
  const length = text.length;
  const regions: number[] = [];
  const heads: number[] = [];
  /** After the last `;` or `}` at the top level. */
  let head = 0;
  const names: string[] = [];
  const positions: number[] = [];

  let depth = 0;
  /** Start of the region being read (after its `{`), or -1. */
  let regionStart = -1;
  let regionIsInitializer = false;
  /** Where the region's names begin in `names` (dropped if the region turns out unsafe). */
  let regionNames = 0;
  let unsafe = false;
  /** Depths at each open `#if`. */
  const conditions: number[] = [];

  // Outside regions, at depth 0: what the last token was, and parentheses (to tell a function's
  // parameter list from an attribute's).
  let topPrevious = NONE;
  let topParens = 0;
  let topParenIsAttribute = false;
  let lastWord = '';

  // Inside regions.
  let previous = NONE;
  /** A name read but not yet recorded: whether it is called depends on the next token. */
  let pendingName: string | undefined;
  let pendingStart = 0;
  let pendingBefore = NONE;
  /** After `struct`/`union`/`enum` (and names): a `{` would define an aggregate. */
  let aggregate = false;
  /** Inside `offsetof(`: the paren depth of its list, and whether the member's name comes next. */
  let offsetofParens = -1;
  let parens = 0;
  let offsetofMember = false;
  /** Per open parenthesis: whether it holds a call's (or a macro's) arguments. */
  const callParens: boolean[] = [];
  /** Per brace depth: whether the braces are an initializer's (`= {`), not a block. */
  const initializerBraces: boolean[] = [false];
  /** Where a block item may begin: after `;`, `{`, `}` or a label's `:`. */
  let itemStart = true;
  /** `?` still waiting for their `:`. */
  let questions = 0;
  let lastKeyword = '';
  /** The pending name begins a block item (1) or follows `static` or the like (2). */
  let pendingHead = 0;
  let pendingKeywordName = false;
  let pendingNotCalled = false;
  // A block item `name(…)` the grammar reads as a declaration when it can: `f(g(a, struct T, m));`
  // is a macro type to it (no call in it, `struct` a keyword), as is `static DEFINE_MUTEX(m);`.
  /** The paren depth of the item's arguments, or -1. */
  let item = -1;
  /** Index in `names` of the item's first name. */
  let itemNames = 0;
  /** After `static` or the like: a declaration whatever follows. */
  let itemDeclares = false;
  /** Only names, keywords, `*`, `,` and calls of names so far: it could be a declaration. */
  let itemPlain = true;
  let itemClosed = false;
  /** A keyword where a type may be: in a call inside the item's (`f(g(a, struct T, m))`), or its first argument (`f(struct T)`). */
  let itemTyped = false;
  /** A `,` of the item's own arguments was seen: a call with a type in it must be the first argument. */
  let itemPastFirst = false;
  /** Indices in `names` of keywords read as names inside the item. */
  const itemKeywordNames: number[] = [];

  const flush = (called: boolean) => {
    if (pendingName === undefined) return;
    if (pendingKeywordName && item !== -1) itemKeywordNames.push(names.length);
    names.push(pendingName);
    positions.push(pendingStart, called ? 1 : 0);
    pendingName = undefined;
  };

  /** The item is a declaration: nothing in it is called, and its keywords are keywords. */
  const declareItem = () => {
    for (let at = itemNames; at < names.length; at++) positions[2 * at + 1] = 0;
    for (let at = itemKeywordNames.length - 1; at >= 0; at--) {
      names.splice(itemKeywordNames[at], 1);
      positions.splice(2 * itemKeywordNames[at], 2);
    }
    item = -1;
  };

  /** A token other than a name, in a region: settles the pending name. */
  const token = (kind: number, code: number) => {
    if (item !== -1) {
      if (itemClosed) {
        if (code === Char.Semicolon && itemPlain && itemTyped) declareItem();
        item = -1;
      } else if (!(kind === NAME || kind === KEYWORD_NAME || kind === KEYWORD || kind === COMMA || kind === CLOSE_PAREN || code === Char.Star || (code === Char.OpenParen && pendingName !== undefined))) {
        itemPlain = false;
      }
    }
    if (code === Char.OpenParen) {
      callParens[parens + 1] = pendingName !== undefined;
      if (pendingName !== undefined && pendingHead !== 0 && item === -1) {
        item = parens + 1;
        itemNames = names.length;
        itemDeclares = pendingHead === 2;
        itemPlain = true;
        itemClosed = false;
        itemTyped = false;
        itemPastFirst = false;
        itemKeywordNames.length = 0;
      }
    }
    if (pendingName !== undefined) {
      if (code === Char.OpenParen) flush(!pendingNotCalled);
      else if (code === Char.Colon && pendingBefore === BOUNDARY) pendingName = undefined; // a label or `member:`
      else flush(false);
    }
    if (code === Char.Question) questions++;
    if (code === Char.Semicolon || code === Char.OpenBrace || code === Char.CloseBrace) {
      questions = 0;
      // Inside an initializer's braces nothing is a block item.
      itemStart = !initializerBraces[depth];
    } else if (code === Char.Colon) {
      // A conditional's `:`, or a label's (after which a block item begins).
      itemStart = questions === 0;
      if (questions > 0) questions--;
    } else itemStart = false;
    previous = kind;
  };

  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    // Whitespace and line continuations.
    if (code === Char.Space || code === Char.Tab || code === Char.Newline || code === Char.Return || code === 11 || code === 12) {
      index++;
      continue;
    }
    if (code === Char.Backslash) {
      const next = text.charCodeAt(index + 1);
      if (next === Char.Newline) {
        index += 2;
        continue;
      }
      if (next === Char.Return && text.charCodeAt(index + 2) === Char.Newline) {
        index += 3;
        continue;
      }
      // A `\u` name or a stray backslash: not something to guess at.
      return undefined;
    }
    if (code === Char.Slash) {
      const next = text.charCodeAt(index + 1);
      if (next === Char.Star) {
        const end = text.indexOf('*/', index + 2);
        index = end === -1 ? length : end + 2;
        continue;
      }
      if (next === Char.Slash) {
        index = lineCommentEnd(text, index + 2);
        continue;
      }
    }
    if (code === Char.Hash) {
      index = directive(index);
      if (index < 0) return undefined;
      continue;
    }
    const inRegion = regionStart !== -1;
    // Names and keywords.
    if ((code >= Char.Lower && code <= Char.LowerZ) || (code >= Char.Upper && code <= Char.UpperZ) || code === Char.Underscore || code === Char.Dollar) {
      let end = index + 1;
      while (end < length && isNameChar(text.charCodeAt(end))) end++;
      const after = text.charCodeAt(end);
      if (after >= 0x80) return undefined; // a name with non-ASCII letters: leave it to the grammar
      // `L"…"`, `u8'…'`: a literal's prefix.
      if ((after === Char.Quote || after === Char.Apostrophe) && end - index <= 2 && /^(?:L|u|U|u8)$/.test(text.slice(index, end))) {
        index = literalEnd(text, end, after);
        if (inRegion) token(after === Char.Quote ? STRING : LITERAL, 0);
        else topPrevious = OTHER;
        continue;
      }
      const word = text.slice(index, end);
      if (inRegion) {
        const keyword = KEYWORDS.has(word);
        if (keyword && (previous === KEYWORD_NAME || ((previous === OPEN_PAREN || previous === COMMA) && parens > 0 && callParens[parens] && !EXPRESSION_KEYWORDS.has(word)))) {
          // A keyword where a macro's argument begins: an identifier to the grammar.
          if (item !== -1 && parens > item && !itemPastFirst) itemTyped = true;
          // `XFS_CHECK_STRUCT_SIZE(struct xfs_acl, 4);`, `typeof_member(struct T, m) x;`: a macro type, whatever follows.
          if (item !== -1 && parens === item && previous === OPEN_PAREN && names.length === itemNames + 1) itemDeclares = true;
          token(KEYWORD_NAME, 0);
          pendingName = word;
          pendingStart = index;
          pendingBefore = NONE;
          pendingHead = 0;
          pendingKeywordName = true;
          pendingNotCalled = false;
        } else if (keyword) {
          if (item !== -1 && EXPRESSION_KEYWORDS.has(word)) itemPlain = false;
          token(word === 'goto' ? GOTO : KEYWORD, 0);
          lastKeyword = word;
          if (word === 'struct' || word === 'union' || word === 'enum') aggregate = true;
          else if (word === 'typedef') unsafe = true;
          else if (word === 'offsetof') offsetofParens = -2; // its `(` comes next
        } else {
          const before = previous;
          const head = before === KEYWORD && DECLARING_KEYWORDS.has(lastKeyword) ? 2 : itemStart ? 1 : 0;
          // Never called: a name after a string (`"%" __stringify(N) "s"` concatenates), or a type in `offsetof(typeof(x), m)`.
          const notCalled = before === STRING || (offsetofParens > 0 && parens === offsetofParens);
          token(NAME, 0);
          if (before === MEMBER || before === GOTO || offsetofMember) {
            offsetofMember = false;
          } else {
            pendingName = word;
            pendingStart = index;
            pendingHead = head;
            pendingKeywordName = false;
            pendingNotCalled = notCalled;
            // A name right after `{`, `;`, `}` or `:` (`,` in an initializer) and before `:` is a label (or an initializer's member).
            pendingBefore = before === BOUNDARY || (before === COMMA && regionIsInitializer) ? BOUNDARY : NONE;
          }
        }
      } else {
        lastWord = word;
        topPrevious = KEYWORDS.has(word) ? KEYWORD : NAME;
      }
      index = end;
      continue;
    }
    // Numbers: digits, or `.` and a digit.
    if ((code >= Char.Zero && code <= Char.Nine) || (code === Char.Dot && isDigit(text.charCodeAt(index + 1)))) {
      index = numberEnd(text, index);
      if (inRegion) token(LITERAL, 0);
      else topPrevious = OTHER;
      continue;
    }
    if (code === Char.Quote || code === Char.Apostrophe) {
      index = literalEnd(text, index, code);
      if (inRegion) token(code === Char.Quote ? STRING : LITERAL, 0);
      else topPrevious = OTHER;
      continue;
    }
    if (code >= 0x80) return undefined;
    // Punctuation.
    index++;
    if (code === Char.OpenBrace) {
      if (!inRegion) {
        if (depth === 0 && topParens === 0 && (topPrevious === CLOSE_PAREN || topPrevious === EQUALS)) {
          regionStart = index;
          regionIsInitializer = topPrevious === EQUALS;
          regionNames = names.length;
          unsafe = false;
          previous = BOUNDARY;
          pendingName = undefined;
          aggregate = false;
          offsetofParens = -1;
          offsetofMember = false;
          parens = 0;
          callParens.length = 0;
          initializerBraces[1] = regionIsInitializer;
          itemStart = !regionIsInitializer;
          questions = 0;
          item = -1;
        } else topPrevious = OTHER;
      } else {
        if (aggregate) unsafe = true;
        const initializer = initializerBraces[depth] || previous === EQUALS;
        initializerBraces[depth + 1] = initializer;
        token(BOUNDARY, code);
        itemStart = !initializer;
      }
      depth++;
      continue;
    }
    if (code === Char.CloseBrace) {
      depth--;
      if (depth < 0) return undefined;
      if (inRegion) {
        token(BOUNDARY, code);
        if (depth === 0) {
          if (unsafe) {
            names.length = regionNames;
            positions.length = 2 * regionNames;
          } else {
            regions.push(regionStart, index - 1);
            heads.push(head);
          }
          regionStart = -1;
          topPrevious = OTHER;
          head = index;
        }
      } else {
        topPrevious = OTHER;
        if (depth === 0) head = index;
      }
      continue;
    }
    if (!inRegion) {
      if (depth === 0) {
        if (code === Char.OpenParen) {
          if (topParens === 0) topParenIsAttribute = topPrevious !== NONE && ATTRIBUTE_KEYWORDS.has(lastWord) && topPrevious === KEYWORD;
          topParens++;
          topPrevious = OPEN_PAREN;
        } else if (code === Char.CloseParen) {
          if (topParens > 0) topParens--;
          topPrevious = topParens === 0 ? (topParenIsAttribute ? ATTRIBUTE : CLOSE_PAREN) : OTHER;
        } else if (code === Char.Equals && topParens === 0 && text.charCodeAt(index) !== Char.Equals) {
          topPrevious = EQUALS;
        } else if (code === Char.Semicolon && topParens === 0) {
          topPrevious = NONE;
          head = index;
        } else topPrevious = OTHER;
      }
      continue;
    }
    // In a region.
    switch (code) {
      case Char.Semicolon:
        aggregate = false;
        token(BOUNDARY, code);
        break;
      case Char.Colon:
        // `::` is no C; a single `:` ends a label.
        token(BOUNDARY, code);
        break;
      case Char.Comma:
        aggregate = false;
        token(COMMA, code);
        if (parens === item) itemPastFirst = true;
        if (offsetofParens >= 0 && parens === offsetofParens) {
          offsetofMember = true;
          offsetofParens = -1;
        }
        break;
      case Char.OpenParen:
        token(OPEN_PAREN, code);
        parens++;
        if (offsetofParens === -2) offsetofParens = parens;
        break;
      case Char.CloseParen:
        aggregate = false;
        token(CLOSE_PAREN, code);
        if (parens === offsetofParens) offsetofParens = -1;
        if (parens === item) {
          if (itemDeclares) declareItem();
          else itemClosed = true;
        }
        parens--;
        break;
      case Char.Dot:
        if (text.charCodeAt(index) === Char.Dot && text.charCodeAt(index + 1) === Char.Dot) {
          index += 2;
          token(OTHER, code);
        } else {
          // `.name =` right in a function's braces: a macro that takes an initializer (`define_machine(x) { .name = … }`), not a body.
          if (!regionIsInitializer && depth === 1 && parens === 0 && (previous === BOUNDARY || previous === COMMA)) unsafe = true;
          token(MEMBER, code);
        }
        break;
      case Char.Minus:
        if (text.charCodeAt(index) === Char.Greater) {
          index++;
          token(MEMBER, code);
        } else {
          aggregate = false;
          token(OTHER, code);
        }
        break;
      default:
        aggregate = false;
        token(code === Char.Equals ? EQUALS : OTHER, code);
    }
  }
  if (depth !== 0 || regionStart !== -1 || conditions.length !== 0) return undefined;
  return regions.length === 0 ? undefined : { regions, heads, names, positions };

  /**
   * A directive from its `#`: returns where the line ends, or -1 when the braces around it do not
   * add up. In a region, `#if`/`#elif` conditions and `#ifdef` names are names; `#define` and
   * `#include` make the body unsafe.
   */
  function directive(start: number): number {
    let at = start + 1;
    while (text.charCodeAt(at) === Char.Space || text.charCodeAt(at) === Char.Tab) at++;
    let end = at;
    while (end < length && isNameChar(text.charCodeAt(end))) end++;
    const name = text.slice(at, end);
    const inRegion = regionStart !== -1;
    // A name before a directive is not called (`f` then `#if` then `(` is beyond the grammar too);
    // what came before stays: `out:` after an `#endif` is still a label.
    if (inRegion) flush(false);
    switch (name) {
      case 'if':
      case 'ifdef':
      case 'ifndef':
        conditions.push(depth);
        break;
      case 'elif':
      case 'elifdef':
      case 'elifndef':
      case 'else':
        if (conditions.length === 0 || conditions[conditions.length - 1] !== depth) return -1;
        break;
      case 'endif':
        if (conditions.length === 0 || conditions.pop() !== depth) return -1;
        break;
      case 'define':
      case 'include':
        if (inRegion) unsafe = true;
        break;
      default:
    }
    if (!inRegion || !(name === 'if' || name === 'elif' || name === 'ifdef' || name === 'ifndef' || name === 'elifdef' || name === 'elifndef' || name === 'else' || name === 'endif')) {
      return directiveEnd(text, end);
    }
    return conditionNames(end, name === 'else' || name === 'endif');
  }

  /** The names of a condition (`#if A && f(B)`, `#ifdef A`) up to the end of its line; `defined` is a keyword here. */
  function conditionNames(from: number, nothing: boolean): number {
    let at = from;
    let pending: string | undefined;
    let pendingAt = 0;
    const settle = (called: boolean) => {
      if (pending === undefined) return;
      names.push(pending);
      positions.push(pendingAt, called ? 1 : 0);
      pending = undefined;
    };
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code === Char.Newline) break;
      if (code === Char.Backslash && (text.charCodeAt(at + 1) === Char.Newline || (text.charCodeAt(at + 1) === Char.Return && text.charCodeAt(at + 2) === Char.Newline))) {
        at += text.charCodeAt(at + 1) === Char.Newline ? 2 : 3;
        continue;
      }
      if (code === Char.Space || code === Char.Tab || code === Char.Return || code === 11 || code === 12) {
        at++;
        continue;
      }
      if (code === Char.Slash && text.charCodeAt(at + 1) === Char.Star) {
        const end = text.indexOf('*/', at + 2);
        at = end === -1 ? length : end + 2;
        continue;
      }
      if (code === Char.Slash && text.charCodeAt(at + 1) === Char.Slash) {
        at = lineCommentEnd(text, at + 2);
        break;
      }
      // Anything after `#else` or `#endif` but a comment: the grammar would stumble; so may we.
      if (nothing) {
        unsafe = true;
        return directiveEnd(text, at);
      }
      if (code >= 0x80 || code === Char.Backslash) return -1;
      if ((code >= Char.Lower && code <= Char.LowerZ) || (code >= Char.Upper && code <= Char.UpperZ) || code === Char.Underscore || code === Char.Dollar) {
        let end = at + 1;
        while (end < length && isNameChar(text.charCodeAt(end))) end++;
        const word = text.slice(at, end);
        settle(false);
        if (word !== 'defined' && !KEYWORDS.has(word)) {
          pending = word;
          pendingAt = at;
        }
        at = end;
        continue;
      }
      if (code >= Char.Zero && code <= Char.Nine) {
        settle(false);
        at = numberEnd(text, at);
        continue;
      }
      if (code === Char.Quote || code === Char.Apostrophe) {
        settle(false);
        at = literalEnd(text, at, code);
        continue;
      }
      settle(code === Char.OpenParen);
      at++;
    }
    settle(false);
    return at;
  }
}

function isDigit(code: number): boolean {
  return code >= Char.Zero && code <= Char.Nine;
}

function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= Char.Lower && code <= 102) || (code >= Char.Upper && code <= 70);
}

/** Digits (hex ones when asked) with `'` separators between them; returns where they end. */
function digitsEnd(text: string, from: number, hex: boolean): number {
  const accepts = hex ? isHexDigit : isDigit;
  let at = from;
  while (accepts(text.charCodeAt(at)) || (text.charCodeAt(at) === Char.Apostrophe && at > from && accepts(text.charCodeAt(at + 1)))) at++;
  return at;
}

/**
 * Where tree-sitter-c's `number_literal` starting at `from` ends: digits (after `0x`, hex ones),
 * a fraction, an exponent, then any of `uUlLwWfFbBdD`. Not a C pp-number: `25000baseSR_Full` is
 * the number `25000b` and the name `aseSR_Full` to the grammar, and so to us.
 */
function numberEnd(text: string, from: number): number {
  let at = from;
  if (text.charCodeAt(at) === Char.Dot) at = digitsEnd(text, at + 1, false);
  else {
    const next = text.charCodeAt(at + 1);
    if (text.charCodeAt(at) === Char.Zero && (next === 120 || next === 88) && isHexDigit(text.charCodeAt(at + 2))) at = digitsEnd(text, at + 2, true);
    else if (text.charCodeAt(at) === Char.Zero && (next === 98 || next === 66) && isDigit(text.charCodeAt(at + 2))) at = digitsEnd(text, at + 2, false);
    else at = digitsEnd(text, at, false);
    if (text.charCodeAt(at) === Char.Dot) at = digitsEnd(text, at + 1, true);
  }
  const exponent = text.charCodeAt(at);
  if (exponent === Char.LowerE || exponent === Char.UpperE || exponent === Char.LowerP || exponent === Char.UpperP) {
    let digits = at + 1;
    if (text.charCodeAt(digits) === Char.Plus || text.charCodeAt(digits) === Char.Minus) digits++;
    at = isHexDigit(text.charCodeAt(digits)) ? digitsEnd(text, digits, true) : at + 1;
  }
  for (;;) {
    const suffix = text.charCodeAt(at);
    // u U l L w W f F b B d D
    if (suffix === 117 || suffix === 85 || suffix === 108 || suffix === 76 || suffix === 119 || suffix === 87 || suffix === 102 || suffix === 70 || suffix === 98 || suffix === 66 || suffix === 100 || suffix === 68) at++;
    else return at;
  }
}

/** After `//`: the end of the comment (a backslash at the end of a line continues it). */
function lineCommentEnd(text: string, from: number): number {
  let at = from;
  for (;;) {
    const newline = text.indexOf('\n', at);
    if (newline === -1) return text.length;
    let back = newline - 1;
    if (text.charCodeAt(back) === Char.Return) back--;
    if (text.charCodeAt(back) !== Char.Backslash) return newline;
    at = newline + 1;
  }
}

/** From a quote: past the closing quote, or to the end of the line when there is none. */
function literalEnd(text: string, from: number, quote: number): number {
  let at = from + 1;
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === quote) return at + 1;
    if (code === Char.Backslash) {
      at++;
      continue;
    }
    if (code === Char.Newline) return at;
  }
  return at;
}

/** From inside a directive: the end of its line, past continuations, comments and literals. */
function directiveEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === Char.Newline) return at;
    if (code === Char.Backslash) {
      at += 2;
      continue;
    }
    if (code === Char.Slash && text.charCodeAt(at + 1) === Char.Star) {
      const end = text.indexOf('*/', at + 2);
      at = end === -1 ? text.length : end + 2;
      continue;
    }
    if (code === Char.Slash && text.charCodeAt(at + 1) === Char.Slash) return lineCommentEnd(text, at + 2);
    if (code === Char.Quote || code === Char.Apostrophe) {
      at = literalEnd(text, at, code);
      continue;
    }
    at++;
  }
  return at;
}

/** What tree-sitter is to parse: the text around the regions, with positions (rows, UTF-16 columns). */
export function includedRanges(text: string, regions: readonly number[]): Range[] {
  const ranges: Range[] = [];
  let line = 0;
  let lineStart = 0;
  let scanned = 0;
  /** Offsets only grow: the row is counted on from the last one. */
  const point = (offset: number) => {
    for (let newline = text.indexOf('\n', scanned); newline !== -1 && newline < offset; newline = text.indexOf('\n', newline + 1)) {
      line++;
      lineStart = newline + 1;
      scanned = newline + 1;
    }
    scanned = Math.max(scanned, lineStart);
    return { row: line, column: offset - lineStart };
  };
  let from = 0;
  for (let index = 0; index < regions.length; index += 2) {
    const start = regions[index];
    ranges.push({ startIndex: from, endIndex: start, startPosition: point(from), endPosition: point(start) });
    from = regions[index + 1];
  }
  ranges.push({ startIndex: from, endIndex: text.length, startPosition: point(from), endPosition: point(text.length) });
  return ranges;
}

/** The same without some regions (by index): their bodies are parsed, their names come from the tree. */
export function withoutRegions(bodies: CBodies, drop: readonly number[]): CBodies | undefined {
  const dropped = new Set(drop);
  const kept: CBodies = { regions: [], heads: [], names: [], positions: [] };
  let region = 0;
  for (let index = 0; index < bodies.names.length; index++) {
    const start = bodies.positions[2 * index];
    while (bodies.regions[2 * region + 1] < start) region++;
    if (dropped.has(region)) continue;
    kept.names.push(bodies.names[index]);
    kept.positions.push(start, bodies.positions[2 * index + 1]);
  }
  for (let index = 0; index < bodies.heads.length; index++) {
    if (dropped.has(index)) continue;
    kept.regions.push(bodies.regions[2 * index], bodies.regions[2 * index + 1]);
    kept.heads.push(bodies.heads[index]);
  }
  return kept.regions.length === 0 ? undefined : kept;
}
