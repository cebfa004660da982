-- AlterTable
ALTER TABLE "Run" ADD COLUMN "cancelRequestedAt" DATETIME;

-- AlterTable
ALTER TABLE "AgentRun" ADD COLUMN "cancelRequestedAt" DATETIME;

