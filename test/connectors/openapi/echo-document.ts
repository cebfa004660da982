/**
 * The OpenAPI 3.0 document (YAML) of the test upstream of `http-upstream.ts`: its server is a placeholder the settings
 * override.
 */
export const ECHO_DOCUMENT = `
openapi: 3.0.3
info: { title: Echo, version: "1" }
servers:
  - url: https://placeholder.invalid/api
paths:
  /items/{itemId}:
    get:
      operationId: getItem
      summary: Reads one item
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: string } }
        - { name: tags, in: query, schema: { type: array, items: { type: string } } }
        - { name: verbose, in: query, schema: { type: boolean } }
        - { name: X-Trace, in: header, schema: { type: string } }
        - { name: session, in: cookie, schema: { type: string } }
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: object } } } }
    delete:
      operationId: deleteItem
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: string } }
      responses:
        "204": { description: gone }
  /items:
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [name], properties: { name: { type: string }, size: { type: integer, nullable: true } } }
      responses:
        "201": { description: created, content: { application/json: { schema: { type: object, properties: { id: { type: string } } } } } }
  /forms:
    post:
      operationId: submitForm
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { a: { type: string }, b: { type: array, items: { type: string } } } }
      responses:
        "200": { description: ok }
  /status/{code}:
    get:
      operationId: status
      parameters:
        - { name: code, in: path, required: true, schema: { type: integer } }
        - { name: retryAfter, in: query, schema: { type: string } }
      responses:
        "200": { description: ok }
  /text:
    get:
      operationId: text
      responses:
        "200": { description: ok, content: { text/plain: { schema: { type: string } } } }
  /slow:
    get:
      operationId: slow
      responses:
        "200": { description: ok }
`;
