-- The context job kind (issue 30): task-aware retrieval.
ALTER TYPE "JobKind" ADD VALUE 'context';
