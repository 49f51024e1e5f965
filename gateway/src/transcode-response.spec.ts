import http, { type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { DataService, GetDatasetResponseSchema } from "@hangar/shared/proto/data";
import { buildRouteTable } from "./routes";
import { MAX_RESPONSE_JSON_BYTES, writeResponse } from "./transcode-response";

// In the embedded default the gateway receives the service's response message itself, not its
// protobuf bytes, so the response size limit is held where the gateway writes the JSON body.

const route = buildRouteTable([DataService]).routes.find((r) => r.method.name === "GetDataset")!;
const withDescription = (chars: number, text = "d") => create(GetDatasetResponseSchema, { dataset: { datasetId: "ds_1", description: text.repeat(chars) } });

/** What writeResponse does with `message` on a real HTTP response: the status and body, or the error it raised. */
async function written(message: ReturnType<typeof withDescription>) {
  let raised: unknown;
  const server = http.createServer((_req, res: ServerResponse) => {
    try {
      writeResponse(res, route, message);
    } catch (error) {
      raised = error;
      res.writeHead(599).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, bodyBytes: body.length, contentLength: Number(response.headers.get("content-length")), body: body.toString("utf8"), raised };
  } finally {
    server.close();
  }
}

test("a response within the JSON bound is written whole", async () => {
  const result = await written(withDescription(1_000));
  expect(result).toMatchObject({ status: 200, raised: undefined });
  expect(result.bodyBytes).toBeGreaterThan(1_000);
});

test("a response whose JSON is over the bound: RESOURCE_EXHAUSTED before anything is written", async () => {
  const result = await written(withDescription(MAX_RESPONSE_JSON_BYTES));
  expect(result.status).toBe(599);
  expect(result.raised).toBeInstanceOf(ConnectError);
  expect(result.raised).toMatchObject({ code: Code.ResourceExhausted, rawMessage: "upstream response too large" });
});

// ASCII bodies are copied byte for byte, others encoded: a Latin-1 letter (one byte in a JavaScript
// string, two in UTF-8), a character past U+00FF and a surrogate pair must all arrive as sent.
test.each([
  ["ASCII letters", "d"],
  ["a Latin-1 letter", "é"],
  ["a letter past U+00FF", "Ł"],
  ["a surrogate pair", "🤖"],
])("a description of %s arrives as UTF-8 with its byte length", async (_label, text) => {
  const result = await written(withDescription(3, text));
  expect(result.status).toBe(200);
  expect(result.contentLength).toBe(result.bodyBytes);
  expect(JSON.parse(result.body).data.description).toBe(text.repeat(3));
});
