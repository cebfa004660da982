import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentClass } from "../../src/agent/agent.ts";
import { optionsFromToolInput } from "../../src/agent/tool-input-mapping.ts";

/** An agent class whose fromToolInput is `map`. */
function agentWith(map: (input: Record<string, unknown>) => unknown): AgentClass {
  class Mapped extends Agent {
    static toolName = "mapped";
    static toolDescription = "Maps its input.";
    static ToolInput = z.object({ question: z.string(), apiKey: z.string().optional() });
    static fromToolInput(input: Record<string, unknown>) {
      return map(input) as never;
    }
    async run() {
      return "ok";
    }
  }
  return Mapped as unknown as AgentClass;
}

/** The error a mapping call threw. */
function failure(cls: AgentClass, input: Record<string, unknown>): { message: string; kind?: string } {
  try {
    optionsFromToolInput(cls, input);
  } catch (e) {
    return e as { message: string; kind?: string };
  }
  throw new Error("expected the mapping to fail");
}

describe("optionsFromToolInput: an agent called as a tool maps its input to run options", () => {
  it("should give the run options the agent's mapping returns", () => {
    const cls = agentWith((input) => ({ userMessage: `Q: ${input.question}`, variables: { n: 1 } }));
    expect(optionsFromToolInput(cls, { question: "why?" })).toEqual({ userMessage: "Q: why?", variables: { n: 1 } });
  });

  it("should use the default mapping of the Agent base class when a class keeps it", () => {
    class Plain extends Agent {
      static toolName = "plain";
      static toolDescription = "Plain.";
      static ToolInput = z.object({ userMessage: z.string() });
      async run() {
        return "ok";
      }
    }
    const options = optionsFromToolInput(Plain as unknown as AgentClass, { userMessage: "hello" });
    expect(options).toMatchObject({ userMessage: "hello" });
  });

  it("should fail as INVALID_INPUT, naming the agent, when the mapping throws", () => {
    const e = failure(
      agentWith(() => {
        throw new Error("question must end with a question mark");
      }),
      { question: "why" },
    );
    expect(e.kind).toBe("INVALID_INPUT");
    expect(e.message).toBe('agent "mapped" refused its tool input: question must end with a question mark');
  });

  it("should scrub every input value of four characters or more from the mapping's message", () => {
    const e = failure(
      agentWith((input) => {
        throw new Error(`bad key ${input.apiKey} for ${input.question} (id 42)`);
      }),
      { question: "status", apiKey: "sk-live-abcdef" },
    );
    expect(e.message).not.toContain("sk-live-abcdef");
    expect(e.message).not.toContain("status");
    expect(e.message).toContain("(id 42)");
  });

  it("should carry a thrown non-error's text, scrubbed too", () => {
    const e = failure(
      agentWith((input) => {
        throw `refused ${input.question}`;
      }),
      { question: "secret-plan" },
    );
    expect(e.kind).toBe("INVALID_INPUT");
    expect(e.message).toContain("refused");
    expect(e.message).not.toContain("secret-plan");
  });

  it("should fail as INTERNAL when the mapping returns something other than an options object", () => {
    for (const returned of [null, "text", ["a"], 3]) {
      const e = failure(
        agentWith(() => returned),
        { question: "q" },
      );
      expect(e.kind).toBe("INTERNAL");
      expect(e.message).toBe('agent "mapped": fromToolInput must return an options object');
    }
  });
});
