import { z } from 'zod';
import { QuarryError } from '@quarry/contracts';

/**
 * Every tool that reads a repository takes it as `repository`: an absolute path (the contracts'
 * `root`) or a git URL, with `ref` beside it for a URL (the contracts' `source`).
 */
export const repositoryArgument = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe('Absolute path or git URL (default: the server\'s).');

export const refArgument = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe('Git ref, for a URL.');

/** The job input fields naming `repository` (and `ref`): a git source for a URL, else `root`. */
export function repositoryFields(repository: string, ref: string | undefined): { root: string } | { source: { git: string; ref?: string } } {
  if (/^[a-z][a-z0-9+.-]*:/i.test(repository) && !/^[a-z]:[\\/]/i.test(repository)) return { source: ref ? { git: repository, ref } : { git: repository } };
  if (ref !== undefined) {
    throw new QuarryError('input_invalid', 'arguments.ref applies to a git URL repository, not to a directory.', { suggestion: 'Leave ref out, or pass the repository\'s git URL.' });
  }
  return { root: repository };
}

/**
 * A contract's input with `root` replaced by the optional `repository`, every remaining field
 * described for the model, and unknown arguments refused (a misspelt argument is an error, not
 * silently ignored). Throws at startup if a field has no description or one names no field.
 */
export function toolInputFrom<S extends z.ZodObject>(contract: S, descriptions: Record<string, string>) {
  const { root: _root, source: _source, ...fields } = contract.shape as Record<string, z.ZodType>;
  return describeFields(z.object({ repository: repositoryArgument, ref: refArgument, ...fields }).strict(), descriptions);
}

/** `schema` with a description on every field; a missing or stray description is a programming error. */
export function describeFields<S extends z.ZodObject>(schema: S, descriptions: Record<string, string>): S {
  const shape = schema.shape as Record<string, z.ZodType>;
  for (const name of Object.keys(descriptions)) {
    if (!(name in shape)) throw new TypeError(`description for "${name}", which is not a field`);
  }
  const described: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(shape)) {
    const description = descriptions[name] ?? type.description;
    if (!description) throw new TypeError(`field "${name}" has no description`);
    described[name] = type.describe(description);
  }
  return schema.extend(described) as S;
}

/** The repository a call names, or the backend's default; a typed error when there is neither. */
export function chooseRepository(given: string | undefined, fallback: string | undefined): string {
  const repository = given ?? fallback;
  if (repository === undefined) {
    throw new QuarryError('input_invalid', 'arguments.repository: this server has no default repository, so the call must name one.', {
      suggestion: 'Pass "repository": the absolute path of the repository, e.g. "/home/me/project" (or start `quarry mcp --root DIR`).',
    });
  }
  return repository;
}
