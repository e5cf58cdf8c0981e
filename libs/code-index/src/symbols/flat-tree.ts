import type { WalkCursor } from './fast-cursor';
import type { SyntaxNode, SyntaxPoint, SyntaxTree } from './syntax-node';

/**
 * A syntax tree parsed natively (native/c_syntax.c) and handed over as one Int32Array: a record
 * of RECORD_SIZE numbers per node, in document order (a node, then its subtree, then its next
 * sibling), the nodes web-tree-sitter's cursor visits. A walk is then index arithmetic, and a
 * `SyntaxNode` is an index into the records, made only when a rule asks for one.
 */
export const TYPE_ID = 0;
export const FIELD_ID = 1;
export const START = 2;
export const END = 3;
/** The record after this node's subtree: its next sibling's, or an ancestor's next sibling's. */
export const NEXT = 4;
export const PARENT = 5;
export const FLAGS = 6;
export const RECORD_SIZE = 7;

const NAMED = 1;
const HAS_ERROR = 2;

/** A grammar's names, by the ids the records hold (from the same grammar's `Language`). */
export interface FlatGrammar {
  /** Node type names by id (web-tree-sitter's `Language.types`). */
  types: readonly string[];
  /** Field names by id (`Language.fields`; id 0 is no field). */
  fields: readonly (string | null)[];
  fieldIds: ReadonlyMap<string, number>;
}

export class FlatTree implements SyntaxTree {
  private newlines: number[] | undefined;

  constructor(
    readonly records: Int32Array,
    readonly text: string,
    readonly grammar: FlatGrammar,
  ) {}

  get rootNode(): FlatNode {
    return new FlatNode(this, 0);
  }

  walk(): FlatCursor {
    return new FlatCursor(this);
  }

  /** Nothing to free: the native tree was freed once flattened. */
  delete(): void {}

  /** Where an offset is, as tree-sitter counts it: rows by `\n`, columns in code units. */
  pointAt(offset: number): SyntaxPoint {
    if (this.newlines === undefined) {
      this.newlines = [];
      for (let at = this.text.indexOf('\n'); at !== -1; at = this.text.indexOf('\n', at + 1)) this.newlines.push(at);
    }
    const newlines = this.newlines;
    // The number of newlines before the offset.
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (newlines[middle] < offset) low = middle + 1;
      else high = middle;
    }
    return { row: low, column: low === 0 ? offset : offset - newlines[low - 1] - 1 };
  }
}

/** A depth-first walk over the records: what fast-cursor.ts does with calls into WebAssembly. */
export class FlatCursor implements WalkCursor {
  private at = 0;
  private readonly records: Int32Array;

  constructor(private readonly tree: FlatTree) {
    this.records = tree.records;
  }

  get typeId(): number {
    return this.records[this.at * RECORD_SIZE + TYPE_ID];
  }

  get fieldId(): number {
    return this.records[this.at * RECORD_SIZE + FIELD_ID];
  }

  get startIndex(): number {
    return this.records[this.at * RECORD_SIZE + START];
  }

  get endIndex(): number {
    return this.records[this.at * RECORD_SIZE + END];
  }

  node(): SyntaxNode {
    return new FlatNode(this.tree, this.at);
  }

  gotoFirstChild(): boolean {
    if (this.records[this.at * RECORD_SIZE + NEXT] === this.at + 1) return false;
    this.at++;
    return true;
  }

  gotoNextSibling(): boolean {
    const parent = this.records[this.at * RECORD_SIZE + PARENT];
    const next = this.records[this.at * RECORD_SIZE + NEXT];
    if (parent === -1 || next >= this.records[parent * RECORD_SIZE + NEXT]) return false;
    this.at = next;
    return true;
  }

  gotoParent(): boolean {
    const parent = this.records[this.at * RECORD_SIZE + PARENT];
    if (parent === -1) return false;
    this.at = parent;
    return true;
  }

  delete(): void {}
}

/** A node of a FlatTree: its record's index. */
export class FlatNode implements SyntaxNode {
  constructor(
    private readonly tree: FlatTree,
    private readonly index: number,
  ) {}

  private field(offset: number): number {
    return this.tree.records[this.index * RECORD_SIZE + offset];
  }

  get typeId(): number {
    return this.field(TYPE_ID);
  }

  get type(): string {
    return this.tree.grammar.types[this.typeId] || 'ERROR';
  }

  get isNamed(): boolean {
    return (this.field(FLAGS) & NAMED) !== 0;
  }

  get hasError(): boolean {
    return (this.field(FLAGS) & HAS_ERROR) !== 0;
  }

  get startIndex(): number {
    return this.field(START);
  }

  get endIndex(): number {
    return this.field(END);
  }

  get startPosition(): SyntaxPoint {
    return this.tree.pointAt(this.startIndex);
  }

  get endPosition(): SyntaxPoint {
    return this.tree.pointAt(this.endIndex);
  }

  get text(): string {
    return this.tree.text.slice(this.startIndex, this.endIndex);
  }

  get parent(): FlatNode | null {
    const parent = this.field(PARENT);
    return parent === -1 ? null : new FlatNode(this.tree, parent);
  }

  /** The record indexes of the children, in order. */
  private childIndexes(): number[] {
    const records = this.tree.records;
    const indexes: number[] = [];
    const end = this.field(NEXT);
    for (let child = this.index + 1; child < end; child = records[child * RECORD_SIZE + NEXT]) indexes.push(child);
    return indexes;
  }

  private isNamedAt(index: number): boolean {
    return (this.tree.records[index * RECORD_SIZE + FLAGS] & NAMED) !== 0;
  }

  get childCount(): number {
    return this.childIndexes().length;
  }

  get namedChildCount(): number {
    return this.childIndexes().filter((index) => this.isNamedAt(index)).length;
  }

  get children(): FlatNode[] {
    return this.childIndexes().map((index) => new FlatNode(this.tree, index));
  }

  get namedChildren(): FlatNode[] {
    return this.childIndexes()
      .filter((index) => this.isNamedAt(index))
      .map((index) => new FlatNode(this.tree, index));
  }

  child(index: number): FlatNode | null {
    const child = this.childIndexes()[index];
    return child === undefined ? null : new FlatNode(this.tree, child);
  }

  namedChild(index: number): FlatNode | null {
    const child = this.childIndexes().filter((candidate) => this.isNamedAt(candidate))[index];
    return child === undefined ? null : new FlatNode(this.tree, child);
  }

  childForFieldId(fieldId: number): FlatNode | null {
    const records = this.tree.records;
    const end = this.field(NEXT);
    for (let child = this.index + 1; child < end; child = records[child * RECORD_SIZE + NEXT]) {
      if (records[child * RECORD_SIZE + FIELD_ID] === fieldId) return new FlatNode(this.tree, child);
    }
    return null;
  }

  childForFieldName(fieldName: string): FlatNode | null {
    const fieldId = this.tree.grammar.fieldIds.get(fieldName);
    return fieldId === undefined ? null : this.childForFieldId(fieldId);
  }

  childrenForFieldName(fieldName: string): FlatNode[] {
    const fieldId = this.tree.grammar.fieldIds.get(fieldName);
    if (fieldId === undefined) return [];
    return this.childIndexes()
      .filter((index) => this.tree.records[index * RECORD_SIZE + FIELD_ID] === fieldId)
      .map((index) => new FlatNode(this.tree, index));
  }

  fieldNameForChild(index: number): string | null {
    const child = this.childIndexes()[index];
    if (child === undefined) return null;
    return this.tree.grammar.fields[this.tree.records[child * RECORD_SIZE + FIELD_ID]] ?? null;
  }

  /**
   * The node and its descendants of those types, in document order, as web-tree-sitter gives them:
   * the node itself included (a root can be an ERROR), nodes ending at offset 0 left out.
   */
  descendantsOfType(types: string | string[]): FlatNode[] {
    const wanted = new Set(typeof types === 'string' ? [types] : types);
    const records = this.tree.records;
    const found: FlatNode[] = [];
    const end = this.field(NEXT);
    for (let descendant = this.index; descendant < end; descendant++) {
      if (records[descendant * RECORD_SIZE + END] === 0) continue;
      const type = this.tree.grammar.types[records[descendant * RECORD_SIZE + TYPE_ID]] || 'ERROR';
      if (wanted.has(type)) found.push(new FlatNode(this.tree, descendant));
    }
    return found;
  }
}
