/*
 * Stack ids. Each kind has its known values plus `custom(name)` for anything else (what an LLM
 * implementation names, e.g. "zig" or "bazel"). Ids are plain lowercase strings on the wire, so
 * consumers never need to tell known from custom ones.
 */

declare const customBrand: unique symbol;
/** A lowercase id outside the known list; only `custom()` makes one. */
export type CustomId = string & { readonly [customBrand]: true };

export const KNOWN_LANGUAGES = [
  'javascript', 'typescript', 'python', 'go', 'rust', 'java', 'kotlin', 'scala', 'csharp', 'fsharp',
  'ruby', 'php', 'elixir', 'c', 'cpp', 'swift', 'dart', 'clojure', 'haskell', 'crystal', 'gleam', 'zig',
  'shell', 'cobol', 'html', 'unknown',
] as const;
export const KNOWN_BUILD_SYSTEMS = [
  'npm', 'yarn-classic', 'yarn-berry', 'pnpm', 'bun', 'deno', 'pip', 'poetry', 'pipenv', 'uv', 'pdm',
  'setuptools', 'conda', 'go', 'cargo', 'maven', 'gradle', 'sbt', 'dotnet', 'composer', 'bundler', 'mix', 'cmake', 'meson',
  'swiftpm', 'dart-pub', 'lein', 'clojure-tools', 'stack', 'cabal', 'shards', 'gleam', 'zig', 'make', 'bazel',
  'hugo', 'zola', 'jekyll', 'none', 'unknown',
] as const;
export const KNOWN_FRAMEWORKS = [
  'nextjs', 'nuxt', 'remix', 'react-router', 'astro', 'sveltekit', 'solid-start', 'angular', 'create-react-app', 'gatsby', 'docusaurus',
  'vite', 'express', 'nestjs', 'adonis', 'fastify', 'koa', 'hono', 'hapi', 'django', 'flask', 'fastapi', 'streamlit',
  'gin', 'echo', 'fiber', 'actix-web', 'axum', 'rocket', 'spring-boot', 'quarkus', 'micronaut', 'ktor',
  'rails', 'sinatra', 'hanami', 'laravel', 'symfony', 'phoenix', 'aspnet-core',
] as const;
export const KNOWN_RUNTIMES = [
  'node', 'bun', 'deno', 'python', 'go', 'rust', 'java', 'ruby', 'php', 'dotnet', 'elixir', 'erlang', 'swift', 'dart', 'haskell',
  'crystal', 'native', 'bash', 'static', 'unknown',
] as const;
export const KNOWN_ORCHESTRATORS = [
  'npm-workspaces', 'yarn-workspaces', 'pnpm-workspaces', 'bun-workspaces', 'turborepo', 'nx', 'lerna',
  'rush', 'moon', 'cargo-workspace', 'go-work', 'uv-workspace', 'maven-modules', 'gradle-multi-project',
] as const;

export type LanguageId = (typeof KNOWN_LANGUAGES)[number] | CustomId;
export type BuildSystemId = (typeof KNOWN_BUILD_SYSTEMS)[number] | CustomId;
export type FrameworkId = (typeof KNOWN_FRAMEWORKS)[number] | CustomId;
export type RuntimeId = (typeof KNOWN_RUNTIMES)[number] | CustomId;
export type OrchestratorId = (typeof KNOWN_ORCHESTRATORS)[number] | CustomId;

/** An id for tech the known lists lack; normalised to lowercase so it serialises like the rest. */
export function custom(name: string): CustomId {
  const id = name.trim().toLowerCase();
  if (!id) throw new Error('custom id must not be empty');
  return id as CustomId;
}
