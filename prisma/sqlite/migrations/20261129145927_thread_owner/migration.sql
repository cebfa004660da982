-- AlterTable
ALTER TABLE "Thread" ADD COLUMN "owner" TEXT;

