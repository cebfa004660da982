import { createHmac } from "node:crypto";
import { z } from "zod";
import type { App } from "../app.ts";
import { ToolError } from "../errors.ts";

/** The secret-tier demo tool: signs a message with the configured credential. */
export function registerSigningTool(app: App, env: NodeJS.ProcessEnv): void {
  app.tool(
    {
      name: "sign_message",
      label: "Sign a message",
      description:
        "Sign a message with HMAC-SHA256 using the configured credential (TAI_DEMO_SIGNING_KEY). Secret tier: inputs and outputs are never stored or published.",
      input: z.object({ message: z.string().max(100_000) }),
      tier: "secret",
    },
    ({ message }) => {
      const credential = env.TAI_DEMO_SIGNING_KEY;
      if (!credential)
        throw new ToolError("the signing credential is not configured (set TAI_DEMO_SIGNING_KEY)", {
          kind: "UNAVAILABLE",
        });
      return { algorithm: "HMAC-SHA256", signature: createHmac("sha256", credential).update(message).digest("hex") };
    },
  );
}
