-- AlterTable
ALTER TABLE "Run" ADD COLUMN "callerKeyId" TEXT;
ALTER TABLE "Run" ADD COLUMN "tier" TEXT;

-- CreateIndex
CREATE INDEX "Run_callerKeyId_startedAt_idx" ON "Run"("callerKeyId", "startedAt");


-- Backfill: older runs recorded the key of their caller by name only. Key names are unique
-- and never reused, so the id follows from the name. Their tier stays NULL (unknown), and
-- only an ADMIN sees them (docs/security-model.md section 2).
UPDATE "Run" SET "callerKeyId" = (SELECT "ApiKey"."id" FROM "ApiKey" WHERE "ApiKey"."name" = "Run"."callerKey") WHERE "callerKey" IS NOT NULL;
