/** The signals retrieval fuses, each measured on its own in `npm run eval:context`. */
export const SIGNALS = ['explicit', 'definitions', 'literals', 'bm25', 'paths', 'graph', 'prior', 'roles'] as const;
export type SignalName = (typeof SIGNALS)[number];

/** How much a note says about a file, for `why`: the strongest few are kept. */
interface Note {
  text: string;
  score: number;
}

const NOTES_KEPT = 3;

/** Chunk scores as the fusion reads them: by chunk, and all of them in the order first scored. */
export interface ChunkScores extends Iterable<[chunk: number, score: number]> {
  readonly size: number;
  get(chunk: number): number | undefined;
  values(): Iterable<number>;
}

/**
 * The chunk scores of a signal that scores a large share of a commit's chunks (BM25 on a kernel
 * tree: a million of them): one score per chunk of the corpus (0: not scored) and the chunks in
 * the order first scored, where a `Map` would hold an entry each.
 */
export class DenseChunkScores implements ChunkScores {
  constructor(
    private readonly scores: Float64Array,
    private readonly order: Int32Array,
  ) {}

  get size(): number {
    return this.order.length;
  }

  get(chunk: number): number | undefined {
    const score = this.scores[chunk];
    return score > 0 ? score : undefined;
  }

  *values(): IterableIterator<number> {
    for (let index = 0; index < this.order.length; index++) yield this.scores[this.order[index]];
  }

  *[Symbol.iterator](): IterableIterator<[number, number]> {
    for (let index = 0; index < this.order.length; index++) yield [this.order[index], this.scores[this.order[index]]];
  }

  max(): number {
    let max = 0;
    for (let index = 0; index < this.order.length; index++) if (this.scores[this.order[index]] > max) max = this.scores[this.order[index]];
    return max;
  }
}

/**
 * One signal's evidence for one task: a score per file and per chunk (by the corpus's numbering),
 * and short notes saying what was matched, for the `why` of the results.
 */
export class SignalScores {
  readonly files = new Map<number, number>();
  private chunkScores: Map<number, number> | DenseChunkScores = new Map<number, number>();
  private readonly notes = new Map<number, Note[]>();

  constructor(readonly signal: SignalName) {}

  get chunks(): ChunkScores {
    return this.chunkScores;
  }

  /**
   * Every chunk score at once, positive scores only: `scores[chunk]`, the chunks listed in `order`
   * (the order they were first scored), as many `addChunk` calls would leave them. Replaces any.
   */
  setChunks(scores: Float64Array, order: Int32Array): void {
    this.chunkScores = new DenseChunkScores(scores, order);
  }

  addFile(file: number, score: number, note?: string): void {
    if (!(score > 0)) return;
    this.files.set(file, (this.files.get(file) ?? 0) + score);
    if (note !== undefined) this.note(file, note, score);
  }

  /** Says what was matched in a file; the notes that weigh most are kept. */
  note(file: number, text: string, weight: number): void {
    const list = this.notes.get(file) ?? [];
    const same = list.find((entry) => entry.text === text);
    if (same) same.score += weight;
    else list.push({ text, score: weight });
    list.sort((a, b) => b.score - a.score);
    if (list.length > NOTES_KEPT) list.length = NOTES_KEPT;
    this.notes.set(file, list);
  }

  addChunk(chunk: number, score: number): void {
    if (!(score > 0)) return;
    if (this.chunkScores instanceof DenseChunkScores) this.chunkScores = new Map(this.chunkScores);
    this.chunkScores.set(chunk, (this.chunkScores.get(chunk) ?? 0) + score);
  }

  notesOf(file: number): string[] {
    return (this.notes.get(file) ?? []).map((note) => note.text);
  }

  maxFileScore(): number {
    let max = 0;
    for (const score of this.files.values()) if (score > max) max = score;
    return max;
  }

  maxChunkScore(): number {
    if (this.chunkScores instanceof DenseChunkScores) return this.chunkScores.max();
    let max = 0;
    for (const score of this.chunkScores.values()) if (score > max) max = score;
    return max;
  }
}
