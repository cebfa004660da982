import { expect } from "vitest";
import { DefinitionError } from "../../src/definition-error.ts";
import { ApiError } from "../../src/errors.ts";

/** The DefinitionError `declare` throws; fails the test when it throws nothing or something else. */
export function definitionRefusal(declare: () => unknown): DefinitionError {
  try {
    declare();
  } catch (e) {
    expect(e).toBeInstanceOf(DefinitionError);
    return e as DefinitionError;
  }
  throw new Error("expected a DefinitionError");
}

/** The ApiError `request` rejects with; fails the test when it resolves or rejects with something else. */
export async function apiRefusal(request: Promise<unknown>): Promise<ApiError> {
  const e = await request.then(
    () => expect.fail("the request was not refused"),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}
