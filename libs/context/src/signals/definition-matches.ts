import type { ContextCorpus } from '../corpus/context-corpus';
import type { IdentifierMention, TaskAnalysis } from '../task/task-analysis';
import { nameKey, STOP_WORDS } from '@quarry/code-index';
import { SignalScores } from './signal-scores';

/** A name defined in more places than this (`__init__`, `eval`, `doit`) points nowhere in particular. */
const MAX_DEFINERS = 40;
/** Names matched only when written in another case (`Latex` for `latex`) count this much. */
const OTHER_CASE = 0.4;
/** A bare call (`convert_to(x)`) names a function more than a method of that name, and `x.f` a method more than a function. */
const SHAPE_MISMATCH = 0.5;
/** A class the task names lends its methods this share: the fix is usually in one of them, not in the class's head. */
const MEMBER_SHARE = 0.3;
const CLASS_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'trait', 'enum']);

/**
 * The task's identifiers matched against the definitions table: the files defining a name the
 * task writes, weighted by where the task writes it (title, code, prose) and by how specific the
 * name is in this commit (few files use it: `nthroot_mod`; many: `Symbol`). The chunk of each
 * matched definition gets the same evidence, for spans. Prose words count only in their exact
 * case, and never keywords or stop words (`if`, `with`, `for` are definitions somewhere).
 */
export function definitionMatches(corpus: ContextCorpus, task: TaskAnalysis): SignalScores {
  const scores = new SignalScores('definitions');
  const fileCount = Math.max(1, corpus.fileCount);
  for (const mention of task.identifiers.values()) {
    // The user's own variables and helpers (`M1 = …`) are theirs, whatever the repository happens to define under the name.
    if (mention.name.length < 2 || STOP_WORDS.has(nameKey(mention.name)) || mention.ownName) continue;
    const exact = corpus.definitionsNamed(mention.name);
    const matches = exact ?? (mention.codeShaped ? corpus.namesWithKey(nameKey(mention.name)).flatMap((name) => corpus.definitionsNamed(name) ?? []) : []);
    if (matches.length === 0 || matches.length > MAX_DEFINERS) continue;
    const definingFiles = new Set(matches.map((entry) => entry.file));
    const users = corpus.filesUsing(mention.name);
    // At least 1: in a small tree every name is used by a large share of its few files.
    const specificity = Math.max(1, Math.log(1 + fileCount / (1 + users + definingFiles.size)));
    const weight = (mention.weight * specificity * (exact ? 1 : OTHER_CASE)) / Math.sqrt(definingFiles.size);
    const perFile = new Map<number, number>();
    for (const entry of matches) {
      const score = weight * kindWeight(entry.definition.kind, entry.definition.container !== undefined, mention);
      perFile.set(entry.file, Math.max(perFile.get(entry.file) ?? 0, score));
      scores.addChunk(entry.chunk, score);
      if (CLASS_KINDS.has(entry.definition.kind)) shareWithMembers(corpus, scores, entry.file, entry.definition.name, score * MEMBER_SHARE);
    }
    for (const [file, score] of perFile) scores.addFile(file, score, `defines ${mention.name}`);
  }
  return scores;
}

function shareWithMembers(corpus: ContextCorpus, scores: SignalScores, file: number, className: string, score: number): void {
  for (let chunk = corpus.chunkStart[file]; chunk < corpus.chunkStart[file + 1]; chunk++) {
    const row = corpus.chunk(chunk);
    if (row.container === className && row.symbol !== className) scores.addChunk(chunk, score);
  }
}

/** Classes and functions say more than a constant of the same name; the shape of the mention picks function or method. */
function kindWeight(kind: string, inContainer: boolean, mention: IdentifierMention): number {
  let weight = kind === 'constant' ? 0.6 : 1;
  const isMethod = kind === 'method' || (inContainer && kind === 'function');
  if (mention.calledBare && !mention.afterDot && isMethod) weight *= SHAPE_MISMATCH;
  if (mention.afterDot && !mention.calledBare && !isMethod && kind === 'function') weight *= SHAPE_MISMATCH;
  return weight;
}
