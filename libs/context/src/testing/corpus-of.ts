import { type BlobIndexer, buildBlobChunks } from '@quarry/code-index';
import { ContextCorpus } from '../corpus/context-corpus';

/** For specs: a corpus from real per-blob rows (the code index's tree-sitter parse and the chunk rows of each file), and a reader of its texts. */
export function corpusOf(indexer: BlobIndexer, files: Record<string, string>): { corpus: ContextCorpus; read: (path: string) => Promise<string> } {
  const rows = Object.entries(files).map(([path, text]) => {
    const language = path.endsWith('.py') ? 'Python' : path.endsWith('.ts') ? 'TypeScript' : path.endsWith('.md') ? 'Markdown' : undefined;
    const index = indexer.index({ path, language, content: text });
    return { path, definitions: index.definitions, references: index.references, chunks: buildBlobChunks({ text, definitions: index.definitions }) };
  });
  return { corpus: new ContextCorpus(rows), read: async (path) => files[path] };
}
