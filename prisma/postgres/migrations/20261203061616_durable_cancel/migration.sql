-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "cancelRequestedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "AgentRun" ADD COLUMN     "cancelRequestedAt" TIMESTAMP(3);

