-- CreateTable
CREATE TABLE "Schedule" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "tool" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "cron" TEXT NOT NULL,
    "timeZone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "callerRole" TEXT NOT NULL,
    "callerKey" TEXT,
    "callerKeyId" TEXT,
    "nextTickAt" DATETIME,
    "lastTickAt" DATETIME,
    "lastRunId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Schedule_nextTickAt_idx" ON "Schedule"("nextTickAt");
