-- CreateTable
CREATE TABLE "Connector" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL,
    "tools" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "listing" JSONB NOT NULL,
    "listingVersion" INTEGER NOT NULL DEFAULT 0,
    "refreshedAt" DATETIME,
    "refreshError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ConnectorChange" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "connectorName" TEXT NOT NULL,
    "listingVersion" INTEGER NOT NULL,
    "cause" TEXT NOT NULL,
    "diff" JSONB NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ConnectorChange_connectorName_fkey" FOREIGN KEY ("connectorName") REFERENCES "Connector" ("name") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ConnectorChange_connectorName_listingVersion_key" ON "ConnectorChange"("connectorName", "listingVersion");

