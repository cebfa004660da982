import { defineConfig } from "prisma/config";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";

// The WASM schema engine runs migrations through this adapter; no Rust binary is used.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "./sqlite/schema.prisma",
  migrations: { path: "./sqlite/migrations" },
  // A migration waits for another connection's lock (a server's start-up read, a slow
  // machine) for 30 s, as better-sqlite3's busy timeout, instead of failing SQLITE_BUSY at 5 s.
  adapter: async () =>
    new PrismaBetterSqlite3({ url: process.env.DATABASE_URL ?? "file:./data/tai42.db", timeout: 30_000 }),
});
