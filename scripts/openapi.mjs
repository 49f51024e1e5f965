#!/usr/bin/env node
// Writes the gateway's OpenAPI document to gateway/dist/api/openapi.json, from the built gateway's route
// table (the protos' google.api.http bindings): the document `GET /openapi.json` serves, for
// generating clients. Run by `npm run build` after tsc; CI validates the result with
// scripts/validate-openapi.mjs.
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const { buildRouteTable, gatewayOpenApiDocument, SERVICES } = require(path.join(repo, "gateway/dist/index.js"));

const document = gatewayOpenApiDocument(buildRouteTable(Object.values(SERVICES)).routes);
// In a folder of its own: a dist/openapi.json would shadow the openapi/ module for require("./openapi").
const out = path.join(repo, "gateway/dist/api/openapi.json");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
console.log(`openapi: ${path.relative(repo, out)}: ${operations} operations`);

