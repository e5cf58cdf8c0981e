-- What a scan learnt from each blob (content hash), shared by every worker and every commit.
CREATE TABLE "blob_facts" (
    "blob" TEXT NOT NULL,
    "binary" BOOLEAN NOT NULL,
    "bytes" BIGINT NOT NULL,
    "lines" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blob_facts_pkey" PRIMARY KEY ("blob")
);
