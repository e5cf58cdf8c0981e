-- Retrieval's chunk row of each blob (issue 30: @quarry/code-index's BlobIndex.chunks, gzipped
-- compact JSON), computed by the scan's shards with the rest of the blob's index. A column of its
-- own so that briefs and symbol look-ups never read it; NULL for binary content. Rows of the
-- previous indexer version (variant `…@3`) have none and are never read again: version 4 keys
-- every blob anew.
ALTER TABLE "blob_code_index" ADD COLUMN "chunks" BYTEA;
