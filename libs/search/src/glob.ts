import RE2 from 're2';
import { QuarryError } from '@quarry/contracts';

export const MAX_GLOB_LENGTH = 500;

/**
 * A file filter from a glob, tested against root-relative POSIX paths. As in ripgrep and
 * .gitignore, a glob without `/` matches the file name at any depth (`*.ts`); one with `/` matches
 * the whole path (`src/**\/*.tsx`, a leading `/` or `./` is dropped). `*` and `?` stay within one
 * segment, `**` spans any number of them, `[abc]`/`[!a-z]` are classes and `{ts,tsx}` alternatives.
 * Compiled to RE2, so even a hostile glob matches in linear time.
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  const trimmed = glob.trim().replace(/^\.?\//, '');
  if (trimmed.length === 0 || trimmed.length > MAX_GLOB_LENGTH) {
    throw new QuarryError('pattern_invalid', `The file filter ${JSON.stringify(glob)} is ${trimmed.length === 0 ? 'empty' : 'too long'}.`, {
      suggestion: 'Use a glob such as "*.ts" or "src/**/*.tsx".',
    });
  }
  const matchesName = !trimmed.includes('/');
  const source = `^${globToRegexSource(trimmed, glob)}$`;
  let regex: RE2;
  try {
    regex = new RE2(source);
  } catch (error) {
    throw invalidGlob(glob, error instanceof Error ? error.message : String(error));
  }
  return (relativePath) => regex.test(matchesName ? relativePath.slice(relativePath.lastIndexOf('/') + 1) : relativePath);
}

function globToRegexSource(glob: string, original: string): string {
  let out = '';
  let braceDepth = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    switch (char) {
      case '*': {
        if (glob[index + 1] !== '*') {
          out += '[^/]*';
          break;
        }
        index++;
        const segmentStart = index === 1 || glob[index - 2] === '/';
        if (segmentStart && glob[index + 1] === '/') {
          out += '(?:[^/]*/)*'; // `**/`: zero or more whole directories
          index++;
        } else {
          out += '.*';
        }
        break;
      }
      case '?':
        out += '[^/]';
        break;
      case '[': {
        const close = glob.indexOf(']', index + 2);
        if (close === -1) throw invalidGlob(original, 'an unclosed [');
        let members = glob.slice(index + 1, close);
        const negated = members.startsWith('!') || members.startsWith('^');
        if (negated) members = members.slice(1);
        out += `[${negated ? '^/' : ''}${members.replace(/[\\\]\[^]/g, '\\$&')}]`;
        index = close;
        break;
      }
      case '{':
        braceDepth++;
        out += '(?:';
        break;
      case '}':
        if (braceDepth === 0) throw invalidGlob(original, 'a } without {');
        braceDepth--;
        out += ')';
        break;
      case ',':
        out += braceDepth > 0 ? '|' : ',';
        break;
      case '\\':
        index++;
        if (index < glob.length) out += escapeForRe2(glob[index]);
        break;
      default:
        out += escapeForRe2(char);
    }
  }
  if (braceDepth > 0) throw invalidGlob(original, 'an unclosed {');
  return out;
}

function escapeForRe2(char: string): string {
  return /[\\^$.|?*+()[\]{}]/.test(char) ? `\\${char}` : char;
}

function invalidGlob(glob: string, reason: string): QuarryError {
  return new QuarryError('pattern_invalid', `The file filter ${JSON.stringify(glob)} is not a valid glob: ${reason}.`, {
    suggestion: 'Use a glob such as "*.ts", "src/**/*.tsx" or "*.{js,ts}".',
  });
}
