-- The code index of each blob (tokens, symbols, references, secrets: @quarry/code-index's
-- BlobIndex, gzipped compact JSON), keyed by what it is a function of: the content (git's blob
-- id), how the path is read (language; TSX apart from TypeScript) and the token encoding.
-- Written insert-or-keep by scan shards and by code-index jobs; shared by every commit.
CREATE TABLE "blob_code_index" (
    "blob" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "encoding" TEXT NOT NULL,
    "binary" BOOLEAN NOT NULL,
    "bytes" BIGINT NOT NULL,
    "tokens" BIGINT NOT NULL,
    "definitions" INTEGER NOT NULL,
    "secrets" INTEGER NOT NULL,
    "warnings" INTEGER NOT NULL,
    "symbols" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blob_code_index_pkey" PRIMARY KEY ("blob", "variant", "encoding")
);
