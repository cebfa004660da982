-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AgentRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agent" TEXT NOT NULL,
    "threadId" TEXT,
    "status" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "final" JSONB,
    "callerRole" TEXT NOT NULL,
    "callerKey" TEXT,
    "checkpoint" JSONB,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "totalTokens" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_AgentRun" ("agent", "callerKey", "callerRole", "checkpoint", "final", "finishedAt", "id", "input", "startedAt", "status", "threadId") SELECT "agent", "callerKey", "callerRole", "checkpoint", "final", "finishedAt", "id", "input", "startedAt", "status", "threadId" FROM "AgentRun";
DROP TABLE "AgentRun";
ALTER TABLE "new_AgentRun" RENAME TO "AgentRun";
CREATE INDEX "AgentRun_threadId_idx" ON "AgentRun"("threadId");
CREATE INDEX "AgentRun_callerKey_idx" ON "AgentRun"("callerKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

