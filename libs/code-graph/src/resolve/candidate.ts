/**
 * How an occurrence was tied to a definition, most certain first: its file's scopes, an import,
 * `this`, a class named as the receiver, a value whose type the code declares or implies (`type`),
 * a package or the global scope, or (`member`) a guess from the file's evidence about a receiver
 * of unknown type.
 */
export type ResolutionKind = 'local' | 'import' | 'this' | 'static' | 'type' | 'package' | 'global' | 'member';

/** A definition an occurrence may refer to, with how sure the rule that found it is. */
export interface Candidate {
  definition: number;
  /** Higher is surer; candidates of one occurrence compare, kinds do not. */
  score: number;
  kind: ResolutionKind;
}

/** The score of a rule that binds a name for certain (a local definition, an import, `this`). */
export const CERTAIN = 100;
