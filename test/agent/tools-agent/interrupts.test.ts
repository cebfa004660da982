import { describe, expect, it } from "vitest";
import type { InterruptAction, PlannedCall } from "../../../src/agent/tools-agent/checkpoint.ts";
import { actionsFor, parseDecisions, parseInterruptOn } from "../../../src/agent/tools-agent/interrupts.ts";

const tools = new Set(["pay", "email", "lookup"]);
const paths = (issues: { path: string }[]) => issues.map((i) => i.path);

describe("parseInterruptOn: which tools of a run are gated", () => {
  it("should gate a tool named true with every decision allowed and no description", () => {
    const { gates, issues } = parseInterruptOn({ pay: true }, tools);
    expect(issues).toEqual([]);
    expect(gates.get("pay")).toEqual({ allowedDecisions: ["approve", "edit", "reject"], description: null });
  });

  it("should keep a tool's own allowed decisions, without repeats, and its description", () => {
    const { gates } = parseInterruptOn(
      { email: { allowedDecisions: ["approve", "reject", "approve"], description: "Sends mail" } },
      tools,
    );
    expect(gates.get("email")).toEqual({ allowedDecisions: ["approve", "reject"], description: "Sends mail" });
  });

  it("should allow every decision when a config lists none", () => {
    expect(parseInterruptOn({ pay: { allowedDecisions: [] } }, tools).gates.get("pay")!.allowedDecisions).toEqual([
      "approve",
      "edit",
      "reject",
    ]);
  });

  it("should leave a tool set to false ungated", () => {
    const { gates, issues } = parseInterruptOn({ pay: false }, tools);
    expect(gates.size).toBe(0);
    expect(issues).toEqual([]);
  });

  it("should name each gated tool that is not a tool of the run at its path", () => {
    const { gates, issues } = parseInterruptOn({ pay: true, launch: true, nuke: { description: "x" } }, tools);
    expect([...gates.keys()]).toEqual(["pay"]);
    expect(paths(issues)).toEqual(["/interruptOn/launch", "/interruptOn/nuke"]);
    expect(issues[0].message).toContain('"launch"');
  });

  it("should gate nothing when the run has no interruptOn", () => {
    expect(parseInterruptOn(undefined, tools)).toEqual({ gates: new Map(), issues: [] });
  });
});

describe("actionsFor: the gated calls of a turn, in the order asked", () => {
  const { gates } = parseInterruptOn(
    { pay: { allowedDecisions: ["approve", "reject"], description: "Moves money" }, email: true },
    tools,
  );
  const calls: PlannedCall[] = [
    { callId: "c1", tool: "email", args: { to: "a" } },
    { callId: "c2", tool: "lookup", args: {} },
    { callId: "c3", tool: "pay", args: { amount: 5 } },
    { callId: "c4", tool: "pay", args: {}, invalid: { kind: "INVALID_INPUT", message: "bad" } },
  ];

  it("should list the gated valid calls with their gate's decisions and description", () => {
    expect(actionsFor(calls, gates)).toEqual([
      {
        callId: "c1",
        tool: "email",
        args: { to: "a" },
        allowedDecisions: ["approve", "edit", "reject"],
        description: null,
      },
      {
        callId: "c3",
        tool: "pay",
        args: { amount: 5 },
        allowedDecisions: ["approve", "reject"],
        description: "Moves money",
      },
    ]);
  });

  it("should list nothing when no call is gated", () => {
    expect(actionsFor([calls[1]], gates)).toEqual([]);
  });
});

describe("parseDecisions: a resume's decisions on the pending actions", () => {
  const action = (
    tool: string,
    allowedDecisions: InterruptAction["allowedDecisions"] = ["approve", "edit", "reject"],
  ): InterruptAction => ({
    callId: `c-${tool}`,
    tool,
    args: {},
    allowedDecisions,
    description: null,
  });
  const two = [action("pay"), action("email")];

  it("should read one decision per action, in order", () => {
    const { decisions, issues } = parseDecisions(
      { decisions: [{ type: "approve" }, { type: "reject", message: "not now" }] },
      two,
    );
    expect(issues).toEqual([]);
    expect(decisions).toEqual([{ type: "approve" }, { type: "reject", message: "not now" }]);
  });

  it("should accept a single decision object when exactly one action is pending", () => {
    expect(parseDecisions({ type: "edit", args: { amount: 1 } }, [action("pay")])).toEqual({
      decisions: [{ type: "edit", args: { amount: 1 } }],
      issues: [],
    });
  });

  it("should refuse a resume that is neither form at /resume", () => {
    for (const resume of [null, "approve", 3, { nope: true }]) {
      const { decisions, issues } = parseDecisions(resume, two);
      expect(decisions).toEqual([]);
      expect(paths(issues)).toEqual(["/resume"]);
    }
  });

  it("should refuse a count that does not match the pending actions, naming them", () => {
    const { issues } = parseDecisions({ decisions: [{ type: "approve" }] }, two);
    expect(paths(issues)).toEqual(["/resume/decisions", "/resume/decisions/1"]);
    expect(issues[0].message).toContain("pay, email");
    expect(issues[0].message).toContain("got 1");
    expect(issues[1].message).toMatch(/^is missing: a decision for email/);
  });

  it("should refuse an unknown decision type at its index", () => {
    const { issues } = parseDecisions({ decisions: [{ type: "approve" }, { type: "maybe" }] }, two);
    expect(paths(issues)).toEqual(["/resume/decisions/1/type"]);
  });

  it("should refuse a decision the action does not allow, naming the allowed ones", () => {
    const { issues } = parseDecisions({ decisions: [{ type: "edit", args: {} }] }, [
      action("pay", ["approve", "reject"]),
    ]);
    expect(paths(issues)).toEqual(["/resume/decisions/0/type"]);
    expect(issues[0].message).toContain("approve, reject");
  });

  it("should refuse an edit without args as an object, and a reject whose message is not a string", () => {
    const { issues } = parseDecisions(
      {
        decisions: [
          { type: "edit", args: [1] },
          { type: "reject", message: 42 },
        ],
      },
      two,
    );
    expect(paths(issues)).toEqual(["/resume/decisions/0/args", "/resume/decisions/1/message"]);
  });

  it("should keep a reject without a message as a reject with no message", () => {
    expect(parseDecisions({ decisions: [{ type: "reject" }] }, [action("pay")]).decisions).toEqual([
      { type: "reject", message: undefined },
    ]);
  });
});
