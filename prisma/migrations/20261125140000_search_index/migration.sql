-- The trigram index of blobs (@quarry/search-index): segments built by the scan's shards, which
-- blob each segment holds, and per commit the manifest that says it is indexed (written last).
CREATE TABLE "search_index_segments" (
    "id" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "blobs" INTEGER NOT NULL,
    "text_bytes" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_index_segments_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "search_index_blobs" (
    "blob" TEXT NOT NULL,
    "segment" TEXT NOT NULL,

    CONSTRAINT "search_index_blobs_pkey" PRIMARY KEY ("blob"),
    CONSTRAINT "search_index_blobs_segment_fkey" FOREIGN KEY ("segment") REFERENCES "search_index_segments"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "search_index_blobs_segment_idx" ON "search_index_blobs"("segment");

CREATE TABLE "search_index_commits" (
    "commit" TEXT NOT NULL,
    "segments" TEXT[] NOT NULL,
    "files" INTEGER NOT NULL,
    "text_bytes" BIGINT NOT NULL,
    "index_bytes" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_index_commits_pkey" PRIMARY KEY ("commit")
);
