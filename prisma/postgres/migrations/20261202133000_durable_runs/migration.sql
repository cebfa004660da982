-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "idempotencyKey" TEXT,
ADD COLUMN     "timeoutSeconds" DOUBLE PRECISION,
ADD COLUMN     "replayable" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "redrives" INTEGER NOT NULL DEFAULT 0;
