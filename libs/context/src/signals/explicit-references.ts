import type { ContextCorpus } from '../corpus/context-corpus';
import type { TaskAnalysis } from '../task/task-analysis';
import { nameKey } from '@quarry/code-index';
import { resolveDottedModule, resolveWrittenPath } from './path-resolution';
import { SignalScores } from './signal-scores';

/** Frames nearer where the error was raised say more; the outermost frames are the caller's script and the runner. */
const FRAME_DECAY = 0.85;
const FRAME_FLOOR = 0.3;
/** More frames in one file add a little (a recursion or a chain of calls inside it), never as much as the first. */
const FRAME_REPEAT = 0.15;
const FRAME_NAMED = 1.5;

/**
 * What the task names outright: paths, stack-trace frames (the frame's line and function pick the
 * span), dotted module paths (`sympy.printing.latex`) and qualified names (`Session.resolve_redirects`).
 */
export function explicitReferences(corpus: ContextCorpus, task: TaskAnalysis): SignalScores {
  const scores = new SignalScores('explicit');
  for (const written of task.paths) {
    for (const { file, strength } of resolveWrittenPath(corpus, written)) {
      scores.addFile(file, strength, `path ${written}`);
    }
  }

  // Depth counts among the frames in this tree: the innermost of them is where to look first,
  // however many library frames lie below it. Each file counts its frames with diminishing
  // returns: a recursion repeats a frame many times.
  const resolvedFrames = task.frames
    .map((frame) => ({ frame, resolved: resolveWrittenPath(corpus, frame.path) }))
    .filter(({ resolved }) => resolved.length > 0);
  const depthInTree = new Map<number, number>();
  for (const trace of new Set(resolvedFrames.map(({ frame }) => frame.trace))) {
    resolvedFrames
      .filter(({ frame }) => frame.trace === trace)
      .sort((a, b) => a.frame.depth - b.frame.depth)
      .forEach((entry, depth) => depthInTree.set(resolvedFrames.indexOf(entry), depth));
  }
  const frameWeights = new Map<number, number[]>();
  resolvedFrames.forEach(({ frame, resolved }, position) => {
    const depthWeight = Math.max(FRAME_FLOOR, FRAME_DECAY ** depthInTree.get(position)!);
    // A frame in a function the task names outside the trace (`… in its __eq__ method`) is where it happens.
    const named = frame.symbol !== undefined && namedOutsideTrace(task, frame.symbol.split('.').pop()!) ? FRAME_NAMED : 1;
    for (const { file, strength } of resolved) {
      const weight = strength * depthWeight * named;
      frameWeights.set(file, [...(frameWeights.get(file) ?? []), weight]);
      const chunk = frameChunk(corpus, file, frame.symbol, frame.line);
      if (chunk !== undefined) scores.addChunk(chunk, weight);
      noteFrame(scores, file, frame.symbol, frame.line, weight);
    }
  });
  for (const [file, weights] of frameWeights) {
    const strongest = Math.max(...weights);
    const others = weights.reduce((sum, weight) => sum + weight, 0) - strongest;
    scores.addFile(file, strongest + FRAME_REPEAT * Math.min(1, others));
  }

  for (const mention of task.dotted) {
    const module = resolveDottedModule(corpus, mention.parts);
    if (module !== undefined) {
      for (const { file, strength } of module.files) {
        const weight = strength * (mention.inCode || mention.inTitle ? 0.8 : 0.5);
        scores.addFile(file, weight, `module ${mention.parts.join('.')}`);
        const name = module.rest[module.rest.length - 1];
        if (name !== undefined) {
          const definition = (corpus.definitionsNamed(name) ?? []).find((entry) => entry.file === file);
          if (definition) scores.addChunk(definition.chunk, weight);
        }
      }
    }
    // Class.method: definitions with that container and name.
    for (let index = 0; index + 1 < mention.parts.length; index++) {
      const [container, name] = [mention.parts[index], mention.parts[index + 1]];
      const matches = (corpus.definitionsNamed(name) ?? []).filter((entry) => entry.definition.container === container);
      for (const entry of matches) {
        const weight = 0.8 / Math.sqrt(matches.length);
        scores.addFile(entry.file, weight, `${container}.${name}`);
        scores.addChunk(entry.chunk, weight);
      }
    }
  }
  return scores;
}

/**
 * Whether the task names a frame's function outside the trace: the name itself (`__eq__`), or a
 * name of the title that is one of its `_`-separated parts (`MatAdd` in `_print_MatAdd`).
 */
function namedOutsideTrace(task: TaskAnalysis, symbol: string): boolean {
  if (task.identifiers.get(symbol)?.outsideTraceback === true) return true;
  const parts = nameKey(symbol).split('_');
  if (parts.length < 2) return false;
  for (const mention of task.identifiers.values()) {
    if (!mention.inTitle || !mention.codeShaped || mention.name.length < 4) continue;
    if (parts.includes(nameKey(mention.name))) return true;
  }
  return false;
}

/** The chunk a frame is in: the definition named like the frame's function, else the chunk at its line. */
function frameChunk(corpus: ContextCorpus, file: number, symbol: string | undefined, line: number | undefined): number | undefined {
  const name = symbol?.split('.').pop();
  if (name !== undefined) {
    const definitions = (corpus.definitionsNamed(name) ?? []).filter((entry) => entry.file === file);
    if (definitions.length > 0) {
      // Several methods of that name in the file: the one whose range holds the line.
      const holding = line === undefined ? undefined : definitions.find((entry) => entry.definition.startLine <= line && entry.definition.endLine >= line);
      return (holding ?? definitions[0]).chunk;
    }
  }
  return line === undefined ? undefined : corpus.chunkAt(file, line);
}

function noteFrame(scores: SignalScores, file: number, symbol: string | undefined, line: number | undefined, weight: number): void {
  const place = [line === undefined ? undefined : `line ${line}`, symbol === undefined ? undefined : `in ${symbol}`].filter(Boolean).join(' ');
  scores.note(file, `stack frame${place ? ` ${place}` : ''}`, weight);
}
