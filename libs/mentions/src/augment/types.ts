import type { MentionSyntaxError, ParsedMention } from '../parse';

/** What the loader produced for one mention. Texts are whole: the augmenter selects and cuts. */
export type ContextBlock =
  | {
      kind: 'file';
      /** Workspace-relative and normalized by the loader: two mentions of one file share it, and are merged on it. */
      path: string;
      /** Fence tag (`typescript`); lower-cased and stripped of anything a tag cannot hold. */
      language?: string;
      /** The whole file, secrets already redacted. The mention's range selects from it. */
      text: string;
      redactions?: number;
    }
  | { kind: 'directory'; path: string; listing: string; /** entries listed */ entries: number; truncated: boolean }
  | { kind: 'search' | 'grep'; pattern: string; body: string; matches: number; shown: number }
  | { kind: 'url'; url: string; finalUrl: string; title?: string; text: string }
  | {
      kind: 'symbol';
      /** The name as mentioned (`Server.start`). */
      symbol: string;
      /** Definitions found (at most the lookup's limit); the first `definitions.length` are shown with their code. */
      total: number;
      /** Best first, each with its code (secrets already redacted). */
      definitions: SymbolDefinitionBlock[];
      /** The other matches, best first, listed by place only. */
      others: { path: string; line: number; kind: string; signature: string }[];
    }
  | {
      kind: 'refs';
      /** The target as mentioned (`Server.start`, `src/app.ts:12`). */
      target: string;
      /** The definition whose uses these are: `Server.start (method) at src/server.ts:3`. */
      definition: string;
      /** Uses found, and the files they are in; the body lists the first `shown`. */
      total: number;
      files: number;
      shown: number;
      /** The uses grouped by file, each with its line's text (secrets redacted). */
      body: string;
    }
  | {
      kind: 'context';
      /** The task retrieval ranked the code for: the quoted one, or the prompt itself for @codebase. */
      task: string;
      /** @codebase: the task is the prompt (the block is labelled by the mention, not by the whole prompt again). */
      fromPrompt: boolean;
      /** The ranked spans' code, best first, each as `path:start-end (kind name)` and its numbered lines; secrets redacted. */
      text: string;
      /** Spans and distinct files in `text`. */
      spans: number;
      files: number;
      /** o200k tokens of `text`. */
      tokens: number;
      /** The commit the ranking was computed on, when retrieval names one. */
      commit?: string;
      /** What retrieval said besides the ranking (nothing matched, a layer that fell back). */
      warnings: string[];
      redactions?: number;
    };

/** One definition of a symbol block: where it is and its lines. */
export interface SymbolDefinitionBlock {
  path: string;
  kind: string;
  name: string;
  container?: string;
  startLine: number;
  endLine: number;
  /** Uses of the name across the repository. */
  references: number;
  /** The definition's lines, `startLine` to `endLine`. */
  text: string;
  language?: string;
  redactions?: number;
}

export type MentionOutcome =
  | { status: 'loaded'; block: ContextBlock }
  | { status: 'failed'; error: { kind: string; message: string; suggestion?: string } }
  | { status: 'ignored' };

export interface AugmentInput {
  prompt: string;
  mentions: readonly ParsedMention[];
  /** `outcomes[i]` is what became of `mentions[i]`. */
  outcomes: readonly MentionOutcome[];
  /** Parse errors, shown as placeholders in text order among the blocks. */
  syntaxErrors?: readonly MentionSyntaxError[];
  /** UTF-8 bytes of the whole augmented prompt. Default 200 KB (200,000 bytes). */
  maxBytes?: number;
}

export interface MentionContribution {
  /** Bytes of this mention's content in the augmented prompt (after cuts; headers not counted). */
  bytes: number;
  /** Lines of this mention's content in the augmented prompt (after cuts). */
  lines: number;
}

export interface AugmentResult {
  augmentedPrompt: string;
  /** One line per block cut or left out, saying what and why; empty when everything fit. */
  cut: string[];
  /** UTF-8 bytes of `augmentedPrompt`. */
  bytes: number;
  /** ceil(bytes / 4): the usual rule of thumb for English and code with BPE tokenizers. */
  estimatedTokens: number;
  /** `perMention[i]` for `mentions[i]`; a mention merged into another's block still counts its own lines. */
  perMention: MentionContribution[];
}
