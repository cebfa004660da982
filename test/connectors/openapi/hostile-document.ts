/**
 * An OpenAPI 3.0 document (YAML) whose operations a hostile caller or upstream attacks
 * (test/connectors/openapi/hostile-calls.test.ts).
 */
export const HOSTILE_DOCUMENT = `
openapi: 3.0.3
info: { title: Hostile, version: "1" }
servers:
  - url: https://placeholder.invalid/api
paths:
  /files/{name}/meta:
    get:
      operationId: fileMeta
      parameters:
        - { name: name, in: path, required: true, schema: { type: string } }
      responses:
        "200": { description: ok }
  /search:
    get:
      operationId: search
      parameters:
        - { name: q, in: query, allowReserved: true, schema: { type: string } }
        - { name: scope, in: query, schema: { type: string } }
      responses:
        "200": { description: ok }
  /note:
    get:
      operationId: note
      parameters:
        - { name: X-Note, in: header, schema: { type: string } }
      responses:
        "200": { description: ok }
  /big:
    get:
      operationId: big
      responses:
        "200": { description: ok }
  /drip:
    get:
      operationId: drip
      responses:
        "200": { description: ok }
  /reason:
    get:
      operationId: reason
      responses:
        "200": { description: ok }
  /reflect:
    get:
      operationId: reflect
      responses:
        "200": { description: ok }
`;
