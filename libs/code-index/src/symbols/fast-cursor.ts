import os from 'node:os';
import type { Tree, TreeCursor } from 'web-tree-sitter';
import type { SyntaxNode } from './syntax-node';

/**
 * A tree cursor for a depth-first walk, at the cost of the WebAssembly calls alone.
 *
 * web-tree-sitter's `TreeCursor` keeps the cursor's four words in JavaScript and copies them into
 * the runtime's transfer buffer before every call and back after every move, each word through
 * Emscripten's generic `setValue`/`getValue`: on Linux `fs/` that glue was a quarter of the whole
 * extraction's CPU, more than the walk itself. The runtime's `*_wasm` functions read the cursor from
 * the transfer buffer and write it back there, so as long as nothing else uses the buffer the
 * cursor can simply stay in it: this class calls those functions directly and copies the four
 * words out only when a `Node` is asked for (node calls use the same buffer), and back in before
 * the next move.
 *
 * It relies on two things of web-tree-sitter 0.25 (pinned in package-lock.json): the Emscripten
 * module is the options object given to `Parser.init` (its exports and `HEAP32` are set on it),
 * and the transfer buffer's address is what `_ts_init` returns. When either is missing the
 * extractor walks with the public `TreeCursor` instead (`PublicCursor`), with the same results;
 * `fast-cursor.spec.ts` checks both walk the same nodes.
 */
export interface WalkCursor {
  readonly typeId: number;
  readonly fieldId: number;
  readonly startIndex: number;
  readonly endIndex: number;
  /** The current node as an object (for the rules that read fields and children). */
  node(): SyntaxNode;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  delete(): void;
}

/** The parts of web-tree-sitter's Emscripten module this cursor calls. */
interface TreeSitterModule {
  HEAP32: Int32Array;
  _ts_init(): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
}

const REQUIRED = [
  '_ts_init',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
] as const;

/** Makes cursors over trees: fast ones when the runtime allows, public ones otherwise. */
export class CursorFactory {
  private constructor(
    private readonly module: TreeSitterModule | undefined,
    /** The transfer buffer, as an index into `HEAP32`. */
    private readonly transfer: number,
  ) {}

  /** `module` is the options object `Parser.init` was given (web-tree-sitter sets its exports on it). */
  static for(module: unknown, options: { fast?: boolean } = {}): CursorFactory {
    if (options.fast === false || os.endianness() !== 'LE' || typeof module !== 'object' || module === null) return new CursorFactory(undefined, 0);
    const candidate = module as Record<string, unknown>;
    if (!(candidate.HEAP32 instanceof Int32Array) || REQUIRED.some((name) => typeof candidate[name] !== 'function')) return new CursorFactory(undefined, 0);
    const address = (candidate as unknown as TreeSitterModule)._ts_init();
    if (typeof address !== 'number' || address <= 0 || address % 4 !== 0) return new CursorFactory(undefined, 0);
    return new CursorFactory(candidate as unknown as TreeSitterModule, address >> 2);
  }

  get fast(): boolean {
    return this.module !== undefined;
  }

  walk(tree: Tree): WalkCursor {
    const cursor = tree.walk();
    if (this.module === undefined) return new PublicCursor(cursor);
    // The tree's address in the runtime: `Tree[0]`, as web-tree-sitter's own calls pass it.
    const address = (tree as unknown as { 0: number })[0];
    if (typeof address !== 'number' || address === 0) return new PublicCursor(cursor);
    return new FastCursor(this.module, this.transfer, address, cursor);
  }
}

class FastCursor implements WalkCursor {
  /** The buffer holds something else (a node): the cursor must be copied back before the next call. */
  private moved = false;

  constructor(
    private readonly module: TreeSitterModule,
    private readonly transfer: number,
    private readonly tree: number,
    private readonly cursor: TreeCursor,
  ) {
    this.restore();
  }

  get typeId(): number {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_current_node_type_id_wasm(this.tree);
  }

  get fieldId(): number {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_current_field_id_wasm(this.tree);
  }

  get startIndex(): number {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_start_index_wasm(this.tree);
  }

  get endIndex(): number {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_end_index_wasm(this.tree);
  }

  node(): SyntaxNode {
    if (!this.moved) this.save();
    // The public getter copies the cursor in, and the node over it.
    const node = this.cursor.currentNode;
    this.moved = true;
    return node;
  }

  gotoFirstChild(): boolean {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_goto_first_child_wasm(this.tree) === 1;
  }

  gotoNextSibling(): boolean {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_goto_next_sibling_wasm(this.tree) === 1;
  }

  gotoParent(): boolean {
    if (this.moved) this.restore();
    return this.module._ts_tree_cursor_goto_parent_wasm(this.tree) === 1;
  }

  delete(): void {
    if (!this.moved) this.save();
    this.moved = true;
    this.cursor.delete();
  }

  /** Buffer → the `TreeCursor`'s words. `HEAP32` is read each time: the memory may have grown. */
  private save(): void {
    const heap = this.module.HEAP32;
    const words = this.cursor as unknown as Record<0 | 1 | 2 | 3, number>;
    words[0] = heap[this.transfer];
    words[1] = heap[this.transfer + 1];
    words[2] = heap[this.transfer + 2];
    words[3] = heap[this.transfer + 3];
  }

  private restore(): void {
    const heap = this.module.HEAP32;
    const words = this.cursor as unknown as Record<0 | 1 | 2 | 3, number>;
    heap[this.transfer] = words[0];
    heap[this.transfer + 1] = words[1];
    heap[this.transfer + 2] = words[2];
    heap[this.transfer + 3] = words[3];
    this.moved = false;
  }
}

/** The same walk through web-tree-sitter's public `TreeCursor`. */
class PublicCursor implements WalkCursor {
  constructor(private readonly cursor: TreeCursor) {}

  get typeId(): number {
    return this.cursor.nodeTypeId;
  }

  get fieldId(): number {
    return this.cursor.currentFieldId;
  }

  get startIndex(): number {
    return this.cursor.startIndex;
  }

  get endIndex(): number {
    return this.cursor.endIndex;
  }

  node(): SyntaxNode {
    return this.cursor.currentNode;
  }

  gotoFirstChild(): boolean {
    return this.cursor.gotoFirstChild();
  }

  gotoNextSibling(): boolean {
    return this.cursor.gotoNextSibling();
  }

  gotoParent(): boolean {
    return this.cursor.gotoParent();
  }

  delete(): void {
    this.cursor.delete();
  }
}
