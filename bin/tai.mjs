#!/usr/bin/env node
// The `tai` command. TypeScript sources (and TAI_MODULES written in .ts) run through tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
