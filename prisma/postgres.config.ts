import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "./postgres/schema.prisma",
  migrations: { path: "./postgres/migrations" },
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL, idleTimeoutMillis: 50 }),
});
