#!/usr/bin/env node
// The `tai` command. TypeScript sources (and TAI_MODULES written in .ts) run through tsx.
// Node 24's built-in type stripping is not enough for them: it rejects constructor
// parameter properties, which the sources use (`constructor(readonly x: T)`).
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
