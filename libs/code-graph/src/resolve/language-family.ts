/** Languages grouped by how their names cross files. */
export type LanguageFamily = 'typescript' | 'python' | 'go' | 'java' | 'rust' | 'c' | 'other';

const FAMILIES: Readonly<Record<string, LanguageFamily>> = {
  TypeScript: 'typescript',
  JavaScript: 'typescript',
  Python: 'python',
  Go: 'go',
  Java: 'java',
  Rust: 'rust',
  C: 'c',
  'C++': 'c',
  CUDA: 'c',
};

export function familyOf(language: string | undefined): LanguageFamily {
  return (language !== undefined && FAMILIES[language]) || 'other';
}

/** How a family's bare names are bound, which is what resolution may assume. */
export interface ScopeRules {
  /**
   * A bare name used in a file that neither defines nor imports it refers to nothing in the
   * repository (a local, a parameter, a builtin): true where imports are explicit.
   */
  explicitImports: boolean;
  /** A bare name may be a member of the enclosing class (Java, C++: `foo()` means `this.foo()`). */
  bareMembers: boolean;
  /** Files that see each other's top-level names without imports: same Go package, same Java package, all of C. */
  sharedScope: 'package-directory' | 'package' | 'global' | 'none';
}

export const SCOPE_RULES: Readonly<Record<LanguageFamily, ScopeRules>> = {
  typescript: { explicitImports: true, bareMembers: false, sharedScope: 'none' },
  python: { explicitImports: true, bareMembers: false, sharedScope: 'none' },
  go: { explicitImports: true, bareMembers: false, sharedScope: 'package-directory' },
  java: { explicitImports: true, bareMembers: true, sharedScope: 'package' },
  rust: { explicitImports: true, bareMembers: false, sharedScope: 'none' },
  c: { explicitImports: false, bareMembers: true, sharedScope: 'global' },
  other: { explicitImports: false, bareMembers: true, sharedScope: 'global' },
};
