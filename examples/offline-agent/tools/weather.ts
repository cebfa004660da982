// tools/weather.ts — the tool under test, as any tool module registers it.
import { app, z } from "tai42";

const FORECASTS: Record<string, { forecast: string; celsius: number }> = {
  paris: { forecast: "sunny", celsius: 24 },
  oslo: { forecast: "rainy", celsius: 12 },
};

app.tool(
  {
    name: "weather",
    description: "Today's forecast for a city.",
    input: z.object({ city: z.string().min(1) }),
  },
  ({ city }) => {
    const found = FORECASTS[city.toLowerCase()];
    if (!found) return { city, forecast: "unknown", celsius: null };
    return { city, ...found };
  },
);
