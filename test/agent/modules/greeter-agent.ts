/** A tool module that registers an agent through the public package, as users write them. */
import { app, Agent, z, type AgentRunOptions } from "tai42";
class GreeterAgent extends Agent {
  static override toolName = "greeter";
  static override toolDescription = "Greets someone by name.";
  static override ToolInput = z.object({ name: z.string() });
  override async run(options: AgentRunOptions) {
    return `Hello, ${options.name}!`;
  }
}
app.agent(GreeterAgent);
