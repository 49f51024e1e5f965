import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { SpanKind } from "@opentelemetry/api";
import { initTelemetry, shutdownTelemetry } from "@hangar/shared";
import { createTenant, startTestPlatform, waitFor, type TestPlatform } from "@hangar/test-harness";

// One request's trace spans the gateway, the data service, the Kafka hop and the admin consumer.

const exporter = new InMemorySpanExporter();
let t: TestPlatform;

beforeAll(async () => {
  initTelemetry("hangar-test", [new SimpleSpanProcessor({ exporter })]);
  t = await startTestPlatform({ kafka: true });
});
afterAll(async () => {
  await t?.close();
  await shutdownTelemetry();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

test("create_dataset produces one trace from the HTTP request to the consumer in another service", async () => {
  const tenant = await createTenant(t, "tracing");
  exporter.reset();
  await tenant.client.post("/v1/datasets", { name: "traced" });
  const consume = await waitFor("the consumer span", async () =>
    exporter.getFinishedSpans().find((s) => s.name === "consume hangar.data.dataset-changed.v1" && s.kind === SpanKind.CONSUMER),
  );
  const trace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === consume.spanContext().traceId);
  const byId = new Map(trace.map((s) => [s.spanContext().spanId, s]));
  const chain: string[] = [];
  for (let span: ReadableSpan | undefined = consume; span; span = byId.get(parentOf(span) ?? "")) chain.unshift(span.name);
  expect(chain).toEqual([
    "POST /v1/datasets",
    "hangar.data.v1.DataService/CreateDataset",
    "publish hangar.data.dataset-changed.v1",
    "consume hangar.data.dataset-changed.v1",
  ]);
  const root = trace.find((s) => s.name === "POST /v1/datasets")!;
  expect(root.kind).toBe(SpanKind.SERVER);
  expect(parentOf(root)).toBeUndefined();
  expect(trace.find((s) => s.name === "hangar.data.v1.DataService/CreateDataset")!.attributes["hangar.service"]).toBe("data");
});
