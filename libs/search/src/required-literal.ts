/**
 * The longest run of plain characters that every match of an RE2 pattern must contain, or
 * undefined when none can be proven. Used as an `indexOf` prefilter: RE2 then runs only on the
 * lines holding that run, which on source trees skips almost every line.
 *
 * Deliberately conservative — only top-level characters outside groups, classes and escapes with
 * a meaning count, and a top-level `|` or any case-insensitive flag gives up — so a wrong answer
 * is impossible and a missed chance merely costs speed.
 */
export function requiredLiteral(pattern: string): string | undefined {
  if (/\(\?[a-zA-Z-]*i/.test(pattern)) return undefined;
  let best = '';
  let run = '';
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index];
    let atom: string | undefined;
    let next = index + 1;
    if (char === '\\') {
      const escaped = pattern[index + 1] ?? '';
      // Only an escaped ASCII punctuation mark stands for itself; letters and digits are classes,
      // anchors or codes (`\d`, `\b`, `\x41`, `\pL`, `\Q`).
      if (/^[!-\/:-@\[-`{-~]$/.test(escaped)) atom = escaped;
      else if (escaped === 'p' || escaped === 'P') next = skipBraced(pattern, index + 2);
      else if (escaped === 'x') next = pattern[index + 2] === '{' ? skipBraced(pattern, index + 2) : index + 4;
      else if (escaped === '0') next = index + 2 + (/^[0-7]{0,2}/.exec(pattern.slice(index + 2, index + 4)) as RegExpExecArray)[0].length;
      else if (escaped === 'Q') return best.length > 0 ? best : undefined; // \Q…\E: give up on the rest, keep what we have
      next = Math.max(next, index + 2);
    } else if (char === '[') {
      next = skipClass(pattern, index);
    } else if (char === '(') {
      const end = skipGroup(pattern, index);
      if (end === -1) return undefined;
      next = end;
    } else if (char === '|') {
      return undefined;
    } else if (!'.^$)*+?{}'.includes(char)) {
      atom = char;
    }
    const quantifier = pattern[next];
    if (quantifier === '*' || quantifier === '?' || quantifier === '{') {
      // The atom may be absent (or repeated with other text between runs): it ends the run and
      // does not join it.
      endRun();
      next = quantifier === '{' ? skipBraced(pattern, next) : next + 1;
      if (pattern[next] === '?') next++;
      index = next;
      continue;
    }
    if (quantifier === '+') {
      // At least once: the atom joins the run, but what follows may come after repeats of it.
      if (atom !== undefined) run += atom;
      endRun();
      next++;
      if (pattern[next] === '?') next++;
      index = next;
      continue;
    }
    if (atom === undefined) endRun();
    else run += atom;
    index = next;
  }
  endRun();
  return best.length > 0 ? best : undefined;
}

/** Index after the `}` closing a `{…}` that starts at `open`, or after `open` if there is none. */
function skipBraced(pattern: string, open: number): number {
  if (pattern[open] !== '{') return open + 1;
  const close = pattern.indexOf('}', open);
  return close === -1 ? open + 1 : close + 1;
}

/** Index after the `]` closing the class opened at `open` (`[]a]`, `[^]a]`, `[[:alpha:]]` and escapes handled). */
function skipClass(pattern: string, open: number): number {
  let index = open + 1;
  if (pattern[index] === '^') index++;
  if (pattern[index] === ']') index++;
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === '\\') index += 2;
    else if (char === '[' && pattern[index + 1] === ':') {
      const end = pattern.indexOf(':]', index + 2);
      index = end === -1 ? index + 1 : end + 2;
    } else if (char === ']') return index + 1;
    else index++;
  }
  return pattern.length;
}

/** Index after the `)` matching the `(` at `open`, or -1 when unbalanced. */
function skipGroup(pattern: string, open: number): number {
  let depth = 0;
  let index = open;
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === '\\') {
      index += 2;
      continue;
    }
    if (char === '[') {
      index = skipClass(pattern, index);
      continue;
    }
    if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return index + 1;
    index++;
  }
  return -1;
}
