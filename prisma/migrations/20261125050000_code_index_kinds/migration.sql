-- The code-index job kinds (issue 14): symbol lookup, the repo map and pack.
ALTER TYPE "JobKind" ADD VALUE 'symbols';
ALTER TYPE "JobKind" ADD VALUE 'map';
ALTER TYPE "JobKind" ADD VALUE 'pack';
