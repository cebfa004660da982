import { describe, expect, it } from "vitest";
import type { BoundParameter, OpenApiBinding } from "../../../src/connectors/openapi/openapi-binding.ts";
import { buildRequest } from "../../../src/connectors/openapi/request-build.ts";

const SERVER = "https://api.example/v1/";
const param = (
  name: string,
  location: BoundParameter["in"],
  style: string,
  explode: boolean,
  extra: Partial<BoundParameter> = {},
): BoundParameter => ({
  name,
  in: location,
  property: name,
  style,
  explode,
  ...extra,
});
const urlOf = (binding: Partial<OpenApiBinding>, input: Record<string, unknown>) =>
  buildRequest({ method: "GET", path: "/x", parameters: [], ...binding }, SERVER, input).url;

describe("how a call's input becomes the request (OpenAPI parameter styles)", () => {
  const pathCases: Array<[string, boolean, unknown, string]> = [
    ["simple", false, [3, 4], "/x/3,4"],
    ["simple", false, { a: 1, b: "c d" }, "/x/a,1,b,c%20d"],
    ["simple", true, { a: 1, b: 2 }, "/x/a=1,b=2"],
    ["label", false, [3, 4], "/x/.3,4"],
    ["label", true, [3, 4], "/x/.3.4"],
    ["matrix", false, 5, "/x/;id=5"],
    ["matrix", true, [3, 4], "/x/;id=3;id=4"],
    ["matrix", false, { a: 1, b: 2 }, "/x/;id=a,1,b,2"],
  ];
  for (const [style, explode, value, expected] of pathCases) {
    it(`writes the path parameter ${JSON.stringify(value)} in style ${style}${explode ? ", exploded" : ""} as ${expected}`, () => {
      expect(urlOf({ path: "/x/{id}", parameters: [param("id", "path", style, explode)] }, { id: value })).toBe(
        `https://api.example/v1${expected}`,
      );
    });
  }

  const queryCases: Array<[string, boolean, unknown, string]> = [
    ["form", true, ["a", "b"], "q=a&q=b"],
    ["form", false, ["a", "b"], "q=a%2Cb"],
    ["form", true, { lat: 1, lon: 2 }, "lat=1&lon=2"],
    ["spaceDelimited", false, ["a", "b"], "q=a%20b"],
    ["pipeDelimited", false, ["a", "b"], "q=a%7Cb"],
    ["deepObject", true, { role: "admin", n: 2 }, "q%5Brole%5D=admin&q%5Bn%5D=2"],
  ];
  for (const [style, explode, value, expected] of queryCases) {
    it(`writes the query parameter ${JSON.stringify(value)} in style ${style}${explode ? ", exploded" : ""} as ${expected}`, () => {
      expect(urlOf({ parameters: [param("q", "query", style, explode)] }, { q: value })).toBe(
        `https://api.example/v1/x?${expected}`,
      );
    });
  }

  it("keeps reserved characters of an allowReserved query value, still encoding & = +", () => {
    expect(
      urlOf({ parameters: [param("next", "query", "form", true, { allowReserved: true })] }, { next: "/a/b?c=d&e+f" }),
    ).toBe("https://api.example/v1/x?next=/a/b?c%3Dd%26e%2Bf");
  });

  it("sends a JSON-content parameter as its JSON text, and leaves out absent and null values", () => {
    const parameters = [
      param("filter", "query", "form", true, { json: true }),
      param("skip", "query", "form", true),
      param("none", "query", "form", true),
    ];
    expect(urlOf({ parameters }, { filter: { a: [1] }, none: null })).toBe(
      `https://api.example/v1/x?filter=${encodeURIComponent('{"a":[1]}')}`,
    );
  });

  it("writes header and cookie parameters, and refuses a call with no absolute server URL", () => {
    const binding: OpenApiBinding = {
      method: "GET",
      path: "/x",
      parameters: [
        param("X-Ids", "header", "simple", false),
        param("sid", "cookie", "form", true),
        param("lang", "cookie", "form", true),
      ],
    };
    expect(buildRequest(binding, SERVER, { "X-Ids": [1, 2], sid: "a;b", lang: "en" }).headers).toEqual({
      "X-Ids": "1,2",
      cookie: "sid=a%3Bb; lang=en",
    });
    expect(() => buildRequest(binding, "/relative", {})).toThrow(
      'the operation has no absolute server URL (the document says "/relative"): set the connector\'s serverUrl',
    );
  });
});
