-- CreateTable
CREATE TABLE "Connector" (
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL,
    "tools" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "listing" JSONB NOT NULL,
    "listingVersion" INTEGER NOT NULL DEFAULT 0,
    "refreshedAt" TIMESTAMP(3),
    "refreshError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Connector_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "ConnectorChange" (
    "id" SERIAL NOT NULL,
    "connectorName" TEXT NOT NULL,
    "listingVersion" INTEGER NOT NULL,
    "cause" TEXT NOT NULL,
    "diff" JSONB NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConnectorChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ConnectorChange_connectorName_listingVersion_key" ON "ConnectorChange"("connectorName", "listingVersion");

-- AddForeignKey
ALTER TABLE "ConnectorChange" ADD CONSTRAINT "ConnectorChange_connectorName_fkey" FOREIGN KEY ("connectorName") REFERENCES "Connector"("name") ON DELETE CASCADE ON UPDATE CASCADE;

