/**
 * Where each referenced name is used in a blob: line, column, whether it is called, and what it
 * is reached through (`a.foo`: the receiver `a`; `this.foo`; `x().foo`). Name resolution across
 * files reads these; the enclosing definition is not stored, it is the innermost definition whose
 * lines hold the occurrence.
 *
 * Packed form (one string per blob, stored as it is): one section per referenced name, in the
 * order of the blob's sorted `references`, separated by spaces; a section's entries are separated
 * by commas, each `<line delta>[c][y][t|m|r<k>|x<k>|p<k>][d<a>.<b>[f][a<k>|n][v<k>|w<k>|u<k>]][e][@<column>]`:
 *   - the line delta from the previous entry of the section (the first from line 0);
 *   - `c`: the name is called; `y`: in a type position; `m`: reached through an expression; `t`: through `this`/`self`;
 *     `r<k>`: through the identifier that is the k-th referenced name; `x<k>`: through the result of calling
 *     the k-th name (`f().name`, `a.f().name`, `new F().name`); `p<k>`: through a member named by it (`a.b.name`);
 *   - `d<a>.<b>`: the occurrence binds the name (a variable, a parameter: not a definition), visible from
 *     `a` lines above to `b` lines below (its scope; one that starts at line 0 is the module's); `f`: as a member of the class that scope is
 *     (`this.db`, `self.db`); `a<k>`: declared with the type the k-th name names, `n`: with a type that
 *     names no class (`string`, `Foo[]`, a literal, a function or object type); its value ends in the
 *     k-th name — `v<k>`: that name, `w<k>`: a call of it, `u<k>`: a member named by it;
 *   - `e`: the last name of an expression a function returns (`return new Foo()`);
 *   - `@<column>` only when the column is not implicit: an entry's column is implicit when it is
 *     the n-th whole-word match of the name on its line and the n-th entry of the name there, which
 *     is nearly always. Readers get the line's text anyway (to show it), so columns cost nothing.
 * On Linux `fs/` this is ~3 bytes an occurrence before gzip.
 */
export interface Occurrence {
  /** 1-based. */
  line: number;
  /** 0-based UTF-16 column, or -1 when it is implicit and the line's text was not given. */
  column: number;
  call: boolean;
  /** How the name is reached: not at all (a bare name), through `this`, a named identifier, or an expression. */
  via: 'bare' | 'this' | 'name' | 'expression';
  /** With `via: 'name'`: the receiver (`ns` of `ns.foo`). */
  receiver?: string;
  /** A type position (TypeScript's `type_identifier`): it names a type, not a value. */
  type?: boolean;
  /**
   * With `via: 'expression'`, what the receiver expression ends in: the result of calling `name`
   * (`f().x`, `a.f().x`, `new F().x`; `call`), or a member `name` of something (`a.b.x`).
   */
  through?: { name: string; call: boolean };
  /** The occurrence binds the name (a variable, a parameter), visible on these lines (its scope; from line 0: the module's). */
  binds?: [first: number, last: number];
  /** The binding is a member of the class its scope is (`constructor(private db: Db)`, `self.db = …`, a field). */
  field?: boolean;
  /** Of a binding: the name its declared type has (`x: Foo`, `x: ns.Foo<T>`, `x: Optional[Foo]` → `Foo`). */
  declaredType?: string;
  /** Of a binding: declared with a type that names no class (`x: string`, `x: Foo[]`, `x: () => void`). */
  unnamedType?: boolean;
  /** Of a binding: the name its value ends in, and how — the name itself, a call of it, a member named by it. */
  value?: { name: string; kind: 'name' | 'call' | 'member' };
  /** The last name of an expression a function returns (`return new Foo()`: `Foo`, called). */
  returned?: boolean;
}

/** Flags of raw occurrences as the extractor records them. */
export const OCCURRENCE_CALL = 1;
export const OCCURRENCE_MEMBER = 2;
export const OCCURRENCE_THIS = 4;
export const OCCURRENCE_TYPE = 8;
/** With OCCURRENCE_MEMBER: the receiver is a call of the receiver name (`f().x`). */
export const OCCURRENCE_RECEIVER_CALL = 16;
/** With OCCURRENCE_MEMBER: the receiver is a member access ending in the receiver name (`a.b.x`). */
export const OCCURRENCE_RECEIVER_MEMBER = 32;
/** The occurrence binds the name; the scope is in the entry's first and last fields. */
export const OCCURRENCE_DECLARES = 64;
/** A binding that is a member of a class (a field, a parameter property, `self.x = …`). */
export const OCCURRENCE_FIELD = 128;
/** A binding's value ends in the receiver name: that name, a call of it, a member named by it. */
export const OCCURRENCE_VALUE_NAME = 256;
export const OCCURRENCE_VALUE_CALL = 512;
export const OCCURRENCE_VALUE_MEMBER = 1024;
/** The last name of a returned expression. */
export const OCCURRENCE_RETURNED = 2048;
/** A binding declared with a type that names no class (`string`, `Foo[]`, a literal, a function or object type). */
export const OCCURRENCE_UNNAMED_TYPE = 4096;

/** The receiver id of an occurrence with no named receiver. */
export const NO_RECEIVER = -1;

/**
 * Occurrences as the extractor collects them: eight numbers each — name id, line (1-based),
 * column, flags, receiver name id (or NO_RECEIVER; a binding's value name), a binding's first and
 * last line of scope, its declared type's name id (or NO_RECEIVER) — ids indexing `names`
 * (first-seen order).
 */
export interface RawOccurrences {
  names: string[];
  data: number[];
}

const FIELDS = 8;

/** True for characters that continue an identifier (letters, digits, `_`, `$`, anything non-ASCII). */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code > 127;
}

/**
 * The column of the n-th (0-based) whole-word match of `name` in `text` between `from` and `to`
 * (a line), relative to `from`; -1 when there are fewer.
 */
export function nthWordColumn(text: string, name: string, n: number, from = 0, to = text.length): number {
  let seen = 0;
  for (let at = text.indexOf(name, from); at !== -1 && at + name.length <= to; at = text.indexOf(name, at + 1)) {
    const before = at > from ? text.charCodeAt(at - 1) : 0;
    const after = at + name.length < to ? text.charCodeAt(at + name.length) : 0;
    if ((before !== 0 && isWordCode(before)) || (after !== 0 && isWordCode(after))) continue;
    if (seen === n) return at - from;
    seen++;
  }
  return -1;
}

/**
 * Packs raw occurrences into the stored string, sections in the order of `sortedNames` (the blob's
 * sorted references); `lineStarts` are the offsets where lines begin in `text`, to decide which
 * columns are implicit.
 */
export function packOccurrences(raw: RawOccurrences, sortedNames: readonly string[], text: string, lineStarts: readonly number[]): string {
  if (raw.data.length === 0) return '';
  const rank = new Map<string, number>();
  sortedNames.forEach((name, index) => rank.set(name, index));
  const nameRank = raw.names.map((name) => rank.get(name) ?? -1);
  const rankOf = (id: number) => (id === NO_RECEIVER ? -1 : nameRank[id]);
  // Entries of each name in document order.
  const byName: number[][] = sortedNames.map(() => []);
  for (let at = 0; at < raw.data.length; at += FIELDS) {
    const section = nameRank[raw.data[at]];
    if (section !== -1) byName[section].push(at);
  }
  const sections: string[] = new Array(sortedNames.length);
  for (let section = 0; section < sortedNames.length; section++) {
    const name = sortedNames[section];
    let previousLine = 0;
    let ordinal = 0;
    let entries = '';
    for (const at of byName[section]) {
      const line = raw.data[at + 1];
      const column = raw.data[at + 2];
      const flags = raw.data[at + 3];
      const receiver = raw.data[at + 4];
      ordinal = line === previousLine ? ordinal + 1 : 0;
      let entry = String(line - previousLine);
      if (flags & OCCURRENCE_CALL) entry += 'c';
      if (flags & OCCURRENCE_TYPE) entry += 'y';
      if (flags & OCCURRENCE_THIS) entry += 't';
      else if (flags & OCCURRENCE_MEMBER) {
        const receiverRank = rankOf(receiver);
        entry += receiverRank === -1 ? 'm' : flags & OCCURRENCE_RECEIVER_CALL ? `x${receiverRank}` : flags & OCCURRENCE_RECEIVER_MEMBER ? `p${receiverRank}` : `r${receiverRank}`;
      }
      if (flags & OCCURRENCE_DECLARES) {
        entry += `d${line - raw.data[at + 5]}.${raw.data[at + 6] - line}`;
        if (flags & OCCURRENCE_FIELD) entry += 'f';
        const typeRank = rankOf(raw.data[at + 7]);
        if (typeRank !== -1) entry += `a${typeRank}`;
        else if (flags & OCCURRENCE_UNNAMED_TYPE) entry += 'n';
        const valueRank = flags & (OCCURRENCE_VALUE_NAME | OCCURRENCE_VALUE_CALL | OCCURRENCE_VALUE_MEMBER) ? rankOf(receiver) : -1;
        if (valueRank !== -1) entry += `${flags & OCCURRENCE_VALUE_CALL ? 'w' : flags & OCCURRENCE_VALUE_MEMBER ? 'u' : 'v'}${valueRank}`;
      }
      if (flags & OCCURRENCE_RETURNED) entry += 'e';
      const lineStart = lineStarts[line - 1];
      const lineEnd = line < lineStarts.length ? lineStarts[line] : text.length;
      if (nthWordColumn(text, name, ordinal, lineStart, lineEnd) !== column) entry += `@${column}`;
      entries += entries === '' ? entry : `,${entry}`;
      previousLine = line;
    }
    sections[section] = entries;
  }
  return sections.join(' ');
}

/**
 * The section of each name in a packed string, by position in the blob's references: an array of
 * [start, end) offsets, so one name's occurrences can be read without parsing the others.
 */
export function occurrenceSections(packed: string, count: number): Int32Array {
  const bounds = new Int32Array(count * 2);
  let start = 0;
  for (let section = 0; section < count; section++) {
    let end = packed.indexOf(' ', start);
    if (end === -1) end = packed.length;
    bounds[section * 2] = start;
    bounds[section * 2 + 1] = end;
    start = end + 1;
  }
  return bounds;
}

/**
 * The occurrences of one section (`packed.slice(start, end)`); `nameAt(k)` is the blob's k-th
 * referenced name (receivers are stored by position). Columns stay -1 where implicit unless
 * `lineText` gives lines to find them in.
 */
export function unpackSection(packed: string, start: number, end: number, name: string, nameAt: (position: number) => string | undefined, lineText?: (line: number) => string | undefined): Occurrence[] {
  const occurrences: Occurrence[] = [];
  let line = 0;
  let ordinal = 0;
  let at = start;
  while (at < end) {
    let comma = packed.indexOf(',', at);
    if (comma === -1 || comma > end) comma = end;
    let cursor = at;
    let delta = 0;
    while (cursor < comma) {
      const code = packed.charCodeAt(cursor);
      if (code < 48 || code > 57) break;
      delta = delta * 10 + (code - 48);
      cursor++;
    }
    line += delta;
    ordinal = delta === 0 && occurrences.length > 0 ? ordinal + 1 : 0;
    const occurrence: Occurrence = { line, column: -1, call: false, via: 'bare' };
    const number = () => {
      let value = 0;
      while (cursor < comma) {
        const code = packed.charCodeAt(cursor);
        if (code < 48 || code > 57) break;
        value = value * 10 + (code - 48);
        cursor++;
      }
      return value;
    };
    while (cursor < comma) {
      const flag = packed[cursor++];
      if (flag === 'c') occurrence.call = true;
      else if (flag === 'y') occurrence.type = true;
      else if (flag === 't') occurrence.via = 'this';
      else if (flag === 'm') occurrence.via = 'expression';
      else if (flag === '@') occurrence.column = number();
      else if (flag === 'r') {
        occurrence.via = 'name';
        const receiver = nameAt(number());
        if (receiver !== undefined) occurrence.receiver = receiver;
      } else if (flag === 'x' || flag === 'p') {
        occurrence.via = 'expression';
        const through = nameAt(number());
        if (through !== undefined) occurrence.through = { name: through, call: flag === 'x' };
      } else if (flag === 'd') {
        const above = number();
        cursor++; // '.'
        occurrence.binds = [line - above, line + number()];
      } else if (flag === 'f') occurrence.field = true;
      else if (flag === 'n') occurrence.unnamedType = true;
      else if (flag === 'a') {
        const type = nameAt(number());
        if (type !== undefined) occurrence.declaredType = type;
      } else if (flag === 'v' || flag === 'w' || flag === 'u') {
        const value = nameAt(number());
        if (value !== undefined) occurrence.value = { name: value, kind: flag === 'w' ? 'call' : flag === 'u' ? 'member' : 'name' };
      } else if (flag === 'e') occurrence.returned = true;
    }
    if (occurrence.column === -1 && lineText !== undefined) {
      const text = lineText(line);
      if (text !== undefined) occurrence.column = nthWordColumn(text, name, ordinal);
    }
    occurrences.push(occurrence);
    at = comma + 1;
  }
  return occurrences;
}

/** Every occurrence of a packed string, by name (the blob's references give the names and order). */
export function unpackOccurrences(packed: string, references: readonly (readonly [string, number])[]): Map<string, Occurrence[]> {
  const result = new Map<string, Occurrence[]>();
  if (packed === '') return result;
  const bounds = occurrenceSections(packed, references.length);
  const nameAt = (position: number) => references[position]?.[0];
  for (let section = 0; section < references.length; section++) {
    const name = references[section][0];
    result.set(name, unpackSection(packed, bounds[section * 2], bounds[section * 2 + 1], name, nameAt));
  }
  return result;
}
