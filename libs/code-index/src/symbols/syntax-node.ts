/**
 * What the extractor and the language rules read of a syntax tree: the part of web-tree-sitter's
 * `Node` they use, which its nodes have and the natively parsed trees of flat-tree.ts have too.
 */
export interface SyntaxPoint {
  row: number;
  column: number;
}

export interface SyntaxNode {
  readonly typeId: number;
  readonly type: string;
  readonly isNamed: boolean;
  readonly hasError: boolean;
  /** Offsets in UTF-16 code units. */
  readonly startIndex: number;
  readonly endIndex: number;
  /** Rows count `\n`s; columns are code units. */
  readonly startPosition: SyntaxPoint;
  readonly endPosition: SyntaxPoint;
  readonly text: string;
  readonly parent: SyntaxNode | null;
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly children: (SyntaxNode | null)[];
  readonly namedChildren: (SyntaxNode | null)[];
  child(index: number): SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
  childForFieldId(fieldId: number): SyntaxNode | null;
  childForFieldName(fieldName: string): SyntaxNode | null;
  childrenForFieldName(fieldName: string): (SyntaxNode | null)[];
  fieldNameForChild(index: number): string | null;
  descendantsOfType(types: string | string[]): (SyntaxNode | null)[];
}

export interface SyntaxTree {
  readonly rootNode: SyntaxNode;
  delete(): void;
}
