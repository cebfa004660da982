-- AlterTable
ALTER TABLE "Preset" ADD COLUMN "limits" JSONB;

