#!/usr/bin/env node
// Validates an OpenAPI document file (default gateway/dist/api/openapi.json, written by the build) with
// @apidevtools/swagger-parser: the OpenAPI 3.1 schema and every $ref. Exits non-zero with the
// validator's message on any error. Run by CI, and by test/e2e/openapi.e2e.ts on the served document.
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";

const file = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../gateway/dist/api/openapi.json"));
try {
  const api = await SwaggerParser.validate(file);
  console.log(`validate-openapi: ${path.basename(file)}: valid OpenAPI ${api.openapi}`);
} catch (error) {
  console.error(`validate-openapi: ${file}: ${error.message}`);
  process.exit(1);
}
