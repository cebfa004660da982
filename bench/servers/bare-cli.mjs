// Start-up baseline for `tai --help`: a bare commander script with tai's top-level
// commands, plain JavaScript, nothing else imported. `node bench/servers/bare-cli.mjs --help`.
import { Command } from "commander";

const program = new Command("tai").description("a bare commander script");
program
  .command("serve")
  .description("serve")
  .action(() => {});
const tools = program.command("tools").description("list and run tools");
tools
  .command("list")
  .option("--json")
  .action(() => {});
tools
  .command("run")
  .argument("<name>")
  .requiredOption("--input <json>")
  .action(() => {});
program
  .command("keys")
  .description("manage keys")
  .command("list")
  .action(() => {});
program
  .command("presets")
  .description("presets")
  .command("list")
  .action(() => {});
program
  .command("manifests")
  .description("manifests")
  .command("list")
  .action(() => {});
program.parse(process.argv);
