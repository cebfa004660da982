-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "rate" JSONB;

