-- AlterTable
ALTER TABLE "AgentRun" ADD COLUMN     "inputTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "outputTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "totalTokens" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "AgentRun_callerKey_idx" ON "AgentRun"("callerKey");

