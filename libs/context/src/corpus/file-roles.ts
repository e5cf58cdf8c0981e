/**
 * What a file is for, from its path: the code itself, its tests, its documentation, examples or
 * benchmarks. A task about behaviour is answered by source; one that asks for tests or docs by
 * those (see `TaskIntent`), so retrieval ranks each role by what the task asks for.
 */
export type FileRole = 'source' | 'test' | 'docs' | 'example';

export const FILE_ROLES: readonly FileRole[] = ['source', 'test', 'docs', 'example'];

const TEST_DIRECTORY = /(^|\/)(tests?|testing|__tests__|spec|specs|test_utils|testdata|fixtures)(\/|$)/i;
const TEST_FILE = /(^|\/)(test_[^/]*|[^/]*_tests?\.[a-z]+|[^/]*\.(test|spec)\.[a-z]+|[^/]*Tests?\.(java|kt|cs|scala|swift)|conftest\.py)$/;
const DOCS_DIRECTORY = /(^|\/)(docs?|documentation|doc-src|man|changelog|changes|news)(\/|$)/i;
/**
 * The repository's own paperwork: issue and pull-request templates, CI workflows. An issue filed
 * from a template repeats its headings and checklists word for word, which is no reason to rank
 * the template.
 */
const META_DIRECTORY = /(^|\/)(\.github|\.gitlab|\.circleci)(\/|$)/i;
const DOCS_FILE = /\.(md|mdx|rst|txt|adoc|asciidoc|texi|tex|ipynb|html?)$|(^|\/)(README|CHANGELOG|CHANGES|HISTORY|AUTHORS|CONTRIBUTING|LICENSE|NEWS)[^/]*$/i;
const EXAMPLE_DIRECTORY = /(^|\/)(examples?|samples?|demos?|bench|benchmarks?|tutorials?)(\/|$)/i;

export function fileRole(path: string): FileRole {
  if (TEST_DIRECTORY.test(path) || TEST_FILE.test(path)) return 'test';
  if (DOCS_FILE.test(path) || DOCS_DIRECTORY.test(path) || META_DIRECTORY.test(path)) return 'docs';
  if (EXAMPLE_DIRECTORY.test(path)) return 'example';
  return 'source';
}
