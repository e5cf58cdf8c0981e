-- CreateTable
CREATE TABLE "fetched_documents" (
    "url" TEXT NOT NULL,
    "final_url" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "title" TEXT,
    "text" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "truncated" BOOLEAN NOT NULL,
    "etag" TEXT,
    "last_modified" TEXT,
    "redirects" JSONB NOT NULL DEFAULT '[]',
    "sha256" TEXT NOT NULL,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "fetched_documents_pkey" PRIMARY KEY ("url")
);

-- CreateIndex
CREATE INDEX "fetched_documents_expires_at_idx" ON "fetched_documents"("expires_at");
