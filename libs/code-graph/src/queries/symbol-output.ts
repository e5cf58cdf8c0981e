import type { NavigationSymbol } from '@quarry/contracts';
import type { Definition } from '@quarry/code-index';
import type { CodeGraph } from '../graph/code-graph';

/** A definition of the graph in the contracts' shape. */
export function symbolOf(graph: CodeGraph, id: number): NavigationSymbol {
  const { file, definition } = graph.definition(id);
  return { path: file.path, ...definitionFields(definition) };
}

/** A definition's fields as the contracts give them (no path: the caller's file says it). */
export function definitionFields(definition: Definition): Omit<NavigationSymbol, 'path'> {
  return {
    name: definition.name,
    kind: definition.kind,
    line: definition.line,
    startLine: definition.startLine,
    endLine: definition.endLine,
    signature: definition.signature,
    ...(definition.container === undefined ? {} : { container: definition.container }),
  };
}

/** Lines of a text, split once and kept for the files a query shows. */
export class LineCache {
  private readonly texts = new Map<string, Promise<string[] | undefined>>();

  constructor(private readonly read: (path: string) => Promise<string | undefined>) {}

  lines(path: string): Promise<string[] | undefined> {
    let lines = this.texts.get(path);
    if (lines === undefined) {
      lines = this.read(path).then(
        (text) => text?.split('\n'),
        () => undefined,
      );
      this.texts.set(path, lines);
    }
    return lines;
  }
}

export const MAX_LINE_TEXT = 400;
