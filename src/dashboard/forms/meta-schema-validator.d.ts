/**
 * ajv's standalone validator of the draft 2020-12 meta-schema, generated at build time (scripts/build-dashboard.mjs,
 * `writeMetaValidator`) and bundled under this name: plain code, no `new Function`.
 */
declare module "tai42-meta-schema-validator" {
  export interface MetaSchemaError {
    instancePath: string;
    keyword: string;
    message?: string;
    params: Record<string, unknown>;
  }
  const validate: ((data: unknown) => boolean) & { errors?: MetaSchemaError[] | null };
  export default validate;
}
