import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { until } from "../graphql/support.ts";
import { as } from "../helpers/runtime.ts";
import { chromiumPresent } from "../helpers/chromium.ts";
import { dashboardSuite } from "./browser.ts";

const present = await chromiumPresent();
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status interactions { id } } }`;
const RUN = `query($id: ID!) { run(id: $id) { status data errorKind } }`;

/** Tools that park: one on a yes/no approval with a note, one whose question expires at once. */
function parkingTools(): App {
  const app = new App();
  app.tool(
    {
      name: "approve_spend",
      description: "Ask a human to approve an amount.",
      input: z.object({ amount: z.number() }),
      pauses: true,
    },
    ({ amount }) =>
      park({
        interactions: [
          {
            question: `Approve spending ${amount} EUR?`,
            answerFormat: {
              type: "object",
              properties: { approved: { type: "boolean", title: "Approved" }, note: { type: "string", title: "Note" } },
              required: ["approved"],
            },
          },
        ],
      }),
  );
  app.tool({ name: "how_many", description: "Asks for a positive count.", input: z.object({}), pauses: true }, () =>
    park({
      interactions: [{ question: "How many copies?", answerFormat: { type: "integer", minimum: 1, title: "Copies" } }],
    }),
  );
  app.tool({ name: "where_to", description: "Asks a free question.", input: z.object({}), pauses: true }, () =>
    park({ interactions: [{ question: "Which city?" }] }),
  );
  app.tool(
    { name: "brief", description: "Asks a question that expires at once.", input: z.object({}), pauses: true },
    () =>
      park({
        interactions: [{ question: "Quick, yes or no?", expiresInSeconds: 0.1, answerFormat: { type: "boolean" } }],
      }),
  );
  return app;
}

describe.skipIf(!present)("the dashboard's interactions screen, in headless Chromium", () => {
  const suite = dashboardSuite();

  it("should show a question as its run parks, and resume the run with the answer given in its form", async () => {
    const server = await suite.serve({ app: parkingTools() });
    const dash = await suite.open("/dashboard#/interactions");
    const { page } = dash;
    await until("the page to subscribe to interactionsChanged", () => server.rt.bus.listenerCount("interaction") >= 1);
    const parked = (
      await server.gql<{ dispatch: { id: string; status: string } }>(DISPATCH, {
        tool: "approve_spend",
        input: { amount: 120 },
      })
    ).data!.dispatch;
    expect(parked.status).toBe("PARKED");

    const card = page.locator("article[data-status=PENDING]").filter({ hasText: "Approve spending 120 EUR?" });
    await card.waitFor();
    await card.getByLabel("Approved").check();
    await card.getByLabel("Note").fill("within budget");
    await dash.screenshot("interactions");
    await card.getByRole("button", { name: "Answer" }).click();

    const outcome = page.getByTestId("answered").getByTestId("run-outcome");
    await outcome.and(page.locator("[data-status=SUCCEEDED]")).waitFor();
    await expect(outcome.innerText()).resolves.toContain("within budget");
    expect(
      (await server.gql<{ run: { status: string; data: unknown } }>(RUN, { id: parked.id })).data!.run,
    ).toMatchObject({
      status: "SUCCEEDED",
      data: { approved: true, note: "within budget" },
    });
    await card.waitFor({ state: "detached" });

    await page.getByRole("tab", { name: "answered" }).click();
    const answered = page.locator("article[data-status=ANSWERED]");
    await expect(answered.innerText()).resolves.toContain("within budget");
    dash.expectClean();
  });

  it("should refuse an answer its answerFormat does not accept, on the page, before sending it", async () => {
    const server = await suite.serve({ app: parkingTools() });
    await server.gql(DISPATCH, { tool: "how_many", input: {} });
    const dash = await suite.open("/dashboard#/interactions");
    const card = dash.page.locator("article[data-status=PENDING]");
    await card.getByLabel("Copies").fill("0");
    await card.getByRole("button", { name: "Answer" }).click();
    await card.getByText("must be >= 1").waitFor();
    expect(await server.rt.interactions.list("PENDING", as("ADMIN"))).toHaveLength(1);
    await card.getByLabel("Copies").fill("3");
    await card.getByRole("button", { name: "Answer" }).click();
    await dash.page.getByTestId("answered").getByText("How many copies?").waitFor();
    expect(await server.rt.interactions.list("PENDING", as("ADMIN"))).toHaveLength(0);
    dash.expectClean();
  });

  it("should take a question with no answerFormat as plain text, as the agent console does, or as JSON when asked", async () => {
    const server = await suite.serve({ app: parkingTools() });
    const first = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "where_to", input: {} })).data!
      .dispatch;
    const dash = await suite.open("/dashboard#/interactions");
    const card = dash.page.locator("article[data-status=PENDING]").filter({ hasText: "Which city?" });
    await card.getByLabel("Answer", { exact: true }).fill("Lyon");
    await dash.screenshot("interactions-text-answer");
    await card.getByRole("button", { name: "Answer" }).click();
    await card.waitFor({ state: "detached" });
    await until("the run to resume", async () => (await server.rt.runs.get(first.id))?.status !== "PARKED");
    const asked = await server.rt.interactions.list("ANSWERED", as("ADMIN"));
    expect(asked.map((i) => i.answer)).toEqual(["Lyon"]);

    await server.gql(DISPATCH, { tool: "where_to", input: {} });
    const second = dash.page.locator("article[data-status=PENDING]").filter({ hasText: "Which city?" });
    await second.getByLabel("Answer as JSON").check();
    await second.getByLabel("Answer (any JSON)").fill('{ "city": "Lyon", "arrondissement": 2 }');
    await second.getByRole("button", { name: "Answer" }).click();
    await second.waitFor({ state: "detached" });
    const answers = (await server.rt.interactions.list("ANSWERED", as("ADMIN"))).map((i) => i.answer);
    expect(answers).toContainEqual({ city: "Lyon", arrondissement: 2 });
    dash.expectClean();
  });

  it("should list an expired question under expired, with its run failed", async () => {
    const server = await suite.serve({ app: parkingTools() });
    const run = (await server.gql<{ dispatch: { id: string } }>(DISPATCH, { tool: "brief", input: {} })).data!.dispatch;
    await until(
      "the question to expire",
      async () => (await server.gql<{ run: { status: string } }>(RUN, { id: run.id })).data!.run.status === "FAILED",
    );
    const dash = await suite.open("/dashboard#/interactions");
    await dash.page.getByRole("tab", { name: "expired" }).click();
    await dash.page.locator("article[data-status=EXPIRED]").filter({ hasText: "Quick, yes or no?" }).waitFor();
    dash.expectClean();
  });
});
