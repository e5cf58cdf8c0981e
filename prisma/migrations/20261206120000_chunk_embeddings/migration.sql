-- Retrieval's semantic layer (issue 30): one vector per chunk text per embeddings model, keyed by
-- the sha256 of what was embedded, so a blob's chunks are embedded once whatever commit holds
-- them. No pgvector on this machine's Postgres: the vector is little-endian float32s, scored
-- exactly in the worker (the candidates of one question are a few thousand chunks).
CREATE TABLE "chunk_embeddings" (
    "model" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "vector" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chunk_embeddings_pkey" PRIMARY KEY ("model", "key")
);
