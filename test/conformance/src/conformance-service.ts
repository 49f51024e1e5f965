// The ConformanceService as the suite's docs (docs/testing_servers.md in connectrpc.com/conformance)
// describe it, after connect-es's packages/connect-conformance/src/routes.ts (Apache-2.0).
import { create, createRegistry } from "@bufbuild/protobuf";
import { anyPack, type Any } from "@bufbuild/protobuf/wkt";
import { ConnectError, type Code, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import {
  BidiStreamRequestSchema,
  ClientStreamRequestSchema,
  ConformancePayloadSchema,
  ConformancePayload_RequestInfoSchema,
  ConformanceService,
  HeaderSchema,
  IdempotentUnaryRequestSchema,
  ServerStreamRequestSchema,
  UnaryRequestSchema,
  type BidiStreamRequest,
  type ConformancePayload,
  type ConformancePayload_RequestInfo,
  type Error as ConformanceError,
  type Header,
  type StreamResponseDefinition,
  type UnaryResponseDefinition,
} from "./gen/connectrpc/conformance/v1/service_pb";

/** The request types echoed back inside `google.protobuf.Any`, which the JSON codec must be able to name. */
const requestTypes = createRegistry(
  UnaryRequestSchema,
  IdempotentUnaryRequestSchema,
  ServerStreamRequestSchema,
  ClientStreamRequestSchema,
  BidiStreamRequestSchema,
  ConformancePayload_RequestInfoSchema,
);

/**
 * Registers the ConformanceService on `router`: every method answers as the request's response
 * definition says (data, headers, trailers, error, delay) and echoes what it received (headers,
 * timeout, messages). `Unimplemented` is left out, so the framework answers it.
 */
export function registerConformanceService(router: ConnectRouter): void {
  router.service(
    ConformanceService,
    {
      unary: (request, context) => answerUnary(request.responseDefinition, [anyPack(UnaryRequestSchema, request)], context),
      idempotentUnary: (request, context) => answerUnary(request.responseDefinition, [anyPack(IdempotentUnaryRequestSchema, request)], context),
      async clientStream(requests, context) {
        let definition: UnaryResponseDefinition | undefined;
        const received: Any[] = [];
        for await (const request of requests) {
          // Only the first message carries the response definition.
          if (received.length === 0) definition = request.responseDefinition;
          received.push(anyPack(ClientStreamRequestSchema, request));
        }
        return answerUnary(definition, received, context);
      },
      async *serverStream(request, context) {
        const definition = request.responseDefinition;
        setMetadata(context, definition);
        const info = requestInfo(context, [anyPack(ServerStreamRequestSchema, request)]);
        yield* respond(definition, info);
      },
      bidiStream: (requests, context) => answerBidi(requests, context),
    },
    { jsonOptions: { registry: requestTypes } },
  );
}

type Payload = { payload: ConformancePayload };

async function answerUnary(definition: UnaryResponseDefinition | undefined, received: Any[], context: HandlerContext): Promise<Payload> {
  setMetadata(context, definition);
  const info = requestInfo(context, received);
  if (definition?.response.case === "error") throw errorOf(definition.response.value, info);
  await sleep(definition?.responseDelayMs ?? 0);
  const data = definition?.response.case === "responseData" ? definition.response.value : undefined;
  return { payload: create(ConformancePayloadSchema, { requestInfo: info, ...(data === undefined ? {} : { data }) }) };
}

/**
 * Half duplex: reads every request, then answers. Full duplex: answers one response per request
 * as they arrive, echoing the requests since the previous response, then sends what is left.
 */
async function* answerBidi(requests: AsyncIterable<BidiStreamRequest>, context: HandlerContext): AsyncGenerator<Payload> {
  let definition: StreamResponseDefinition | undefined;
  let fullDuplex = false;
  let sent = 0;
  let received: Any[] = [];
  for await (const request of requests) {
    if (received.length === 0 && sent === 0) {
      definition = request.responseDefinition;
      fullDuplex = request.fullDuplex;
      setMetadata(context, definition);
    }
    received.push(anyPack(BidiStreamRequestSchema, request));
    if (!fullDuplex) continue;
    if (definition === undefined || sent >= definition.responseData.length) break;
    await sleep(definition.responseDelayMs);
    yield { payload: create(ConformancePayloadSchema, { requestInfo: requestInfo(context, received), data: definition.responseData[sent]! }) };
    sent++;
    received = [];
  }
  yield* respond(definition, requestInfo(context, received), sent);
}

/** Sends the definition's responses from `from` on (the request info with the first), then its error if any. */
async function* respond(definition: StreamResponseDefinition | undefined, info: ConformancePayload_RequestInfo, from = 0): AsyncGenerator<Payload> {
  const data = definition?.responseData ?? [];
  for (let index = from; index < data.length; index++) {
    await sleep(definition!.responseDelayMs);
    yield { payload: create(ConformancePayloadSchema, { ...(index === 0 ? { requestInfo: info } : {}), data: data[index]! }) };
  }
  // With no response sent, the error is the only place left to echo the request.
  if (definition?.error !== undefined) throw data.length === 0 ? errorOf(definition.error, info) : errorOf(definition.error);
}

function setMetadata(context: HandlerContext, definition: { responseHeaders: Header[]; responseTrailers: Header[] } | undefined): void {
  appendHeaders(context.responseHeader, definition?.responseHeaders ?? []);
  appendHeaders(context.responseTrailer, definition?.responseTrailers ?? []);
}

function appendHeaders(target: Headers, headers: Header[]): void {
  for (const header of headers) for (const value of header.value) target.append(header.name, value);
}

function requestInfo(context: HandlerContext, requests: Any[]): ConformancePayload_RequestInfo {
  const timeoutMs = context.timeoutMs();
  const requestHeaders: Header[] = [];
  context.requestHeader.forEach((value, name) => requestHeaders.push(create(HeaderSchema, { name, value: [value] })));
  return create(ConformancePayload_RequestInfoSchema, { requestHeaders, requests, ...(timeoutMs === undefined ? {} : { timeoutMs: BigInt(timeoutMs) }) });
}

/** The definition's error as a ConnectError: its details passed on as they are, plus the request info when given. */
function errorOf(error: ConformanceError, info?: ConformancePayload_RequestInfo): ConnectError {
  const connectError = new ConnectError(error.message ?? "", error.code as number as Code, undefined, info === undefined ? [] : [{ desc: ConformancePayload_RequestInfoSchema, value: info }]);
  const given = error.details.map((detail) => ({ type: detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1), value: detail.value }));
  connectError.details.unshift(...given);
  return connectError;
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
