import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import type { Runtime } from "../../src/runtime.ts";

export interface GqlResult<T = Record<string, any>> {
  status: number;
  data?: T;
  errors?: {
    message: string;
    path?: string[];
    extensions?: { code?: string; issues?: { path: string; message: string }[] };
  }[];
  /** The raw response text: for asserting that something never appears. */
  text: string;
}

/** In-process GraphQL calls through yoga.fetch (no port), as a given key or anonymously. */
export function gqlClient(rt: Runtime) {
  const server: TaiServer = buildApp(rt);
  return async function gql<T = Record<string, any>>(
    query: string,
    variables: Record<string, unknown> = {},
    key?: string,
  ): Promise<GqlResult<T>> {
    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    const body = JSON.parse(text);
    return { status: res.status, data: body.data, errors: body.errors, text };
  };
}
