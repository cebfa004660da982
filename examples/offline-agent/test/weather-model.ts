// test/weather-model.ts — the models the tests script, loaded next to the tools
// (TAI_MODULES=tools/weather.ts,test/weather-model.ts).
import { app, scriptedModel } from "tai42";

// In code: a turn decides from what the model was shown. No tool result yet since the
// question: call the tool (`turn` would not do: it counts the thread's earlier runs too).
app.llmProvider(
  "weather-script",
  scriptedModel({
    turns: ({ userMessage, toolResults }) => {
      if (toolResults.length === 0) {
        const city = /\b(Paris|Oslo)\b/i.exec(userMessage)?.[1] ?? "Paris";
        return {
          reasoning: `The user asks about ${city}: I will look it up.`,
          toolCalls: [{ name: "weather", args: { city } }],
        };
      }
      const { city, forecast, celsius } = toolResults[0].output as { city: string; forecast: string; celsius: number };
      return { text: `In ${city} it is ${forecast}, ${celsius} °C.`, usage: { inputTokens: 40, outputTokens: 8 } };
    },
  }),
);

// In a file: a conversation turn by turn (JSON works too), selected per run with llmProvider.
app.llmProvider("weather-yaml", scriptedModel({ file: new URL("./weather.script.yaml", import.meta.url) }));
