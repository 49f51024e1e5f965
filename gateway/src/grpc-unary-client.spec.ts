import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } from "@hangar/shared/proto/data";
import { createGrpcUnaryClient } from "./grpc-unary-client";

/** A bare HTTP/2 server whose behaviour each test scripts, to exercise the client's wire handling. */
async function withServer(onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void, run: (url: string) => Promise<void>) {
  const server = http2.createServer();
  server.on("stream", onStream);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await run(url);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const request = () => create(GetDatasetRequestSchema, { datasetId: "ds_1" });
const options = { headers: { "x-test": "1" }, timeoutMs: 2_000 };

const reply = toBinary(GetDatasetResponseSchema, create(GetDatasetResponseSchema, { dataset: { datasetId: "ds_1", orgId: "og_1" } }));

/** Reads the request, then answers with `reply` and status 0. */
function answerOk(stream: http2.ServerHttp2Stream) {
  stream.on("data", () => {});
  stream.on("end", () => respond(stream, reply, { "grpc-status": "0" }));
}

function respond(stream: http2.ServerHttp2Stream, body: Uint8Array, trailers: Record<string, string>) {
  stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers(trailers));
  const framed = Buffer.alloc(5 + body.length);
  framed.writeUInt32BE(body.length, 1);
  framed.set(body, 5);
  stream.end(framed);
}

test("sends the method path, gRPC headers, deadline and metadata, and decodes the framed response", async () => {
  let seen: http2.IncomingHttpHeaders = {};
  await withServer(
    (stream, headers) => {
      seen = headers;
      answerOk(stream);
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.orgId).toBe("og_1");
    },
  );
  expect(seen[":path"]).toBe("/hangar.data.v1.DataService/GetDataset");
  expect(seen["content-type"]).toBe("application/grpc+proto");
  expect(seen.te).toBe("trailers");
  expect(seen["grpc-timeout"]).toBe("2000m");
  expect(seen["x-test"]).toBe("1");
});

test("a trailers-only error becomes a ConnectError with the status code and decoded message", async () => {
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": String(Code.NotFound), "grpc-message": "dataset%20'x'%20not%20found" }, { endStream: true });
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      client.close();
      expect(error).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code).toBe(Code.NotFound);
      expect((error as ConnectError).rawMessage).toBe("dataset 'x' not found");
    },
  );
});

test("a service that does not answer in time fails the call with DeadlineExceeded", async () => {
  await withServer(
    (stream) => stream.on("data", () => {}),
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const started = Date.now();
      const error = await client.call(DataService.method.getDataset, request(), { ...options, timeoutMs: 150 }).catch((e: unknown) => e);
      client.close();
      expect((error as ConnectError).code).toBe(Code.DeadlineExceeded);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    },
  );
});

test("a truncated response message is an internal error, not a crash", async () => {
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.on("end", () => {
        stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(Buffer.from([0, 0, 0, 0, 9, 1]));
      });
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      client.close();
      expect((error as ConnectError).code).toBe(Code.Internal);
    },
  );
});

test("a service that is down fails the call with Unavailable, and the next call reconnects", async () => {
  const client = createGrpcUnaryClient("http://127.0.0.1:1");
  const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
  expect((error as ConnectError).code).toBe(Code.Unavailable);
  const again = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
  expect((again as ConnectError).code).toBe(Code.Unavailable);
  client.close();
});

test("a response without grpc-status takes its code from the HTTP status (gRPC's HTTP mapping)", async () => {
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.respond({ ":status": 503 }, { endStream: true });
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      client.close();
      expect((error as ConnectError).code).toBe(Code.Unavailable);
      expect((error as ConnectError).rawMessage).toContain("HTTP 503");
    },
  );
});

test("a response over 4 MiB is refused with ResourceExhausted and the stream is reset", async () => {
  let resetCode: number | undefined;
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.on("close", () => (resetCode = stream.rstCode));
      stream.on("error", () => {});
      stream.on("end", () => {
        stream.respond({ ":status": 200, "content-type": "application/grpc+proto" });
        // In pieces, so that the stream is still open when the client gives up on it.
        const timer = setInterval(() => (stream.closed ? clearInterval(timer) : stream.write(Buffer.alloc(1024 * 1024))), 5);
      });
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      expect((error as ConnectError).code).toBe(Code.ResourceExhausted);
      await new Promise((r) => setTimeout(r, 50));
      client.close();
    },
  );
  expect(resetCode).toBe(http2.constants.NGHTTP2_CANCEL);
});

test("when the service closes the connection, the next call opens a new one", async () => {
  const sessions = new Set<http2.Http2Session>();
  await withServer(
    (stream) => {
      sessions.add(stream.session!);
      answerOk(stream);
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      await client.call(DataService.method.getDataset, request(), options);
      for (const session of sessions) session.close();
      await new Promise((r) => setTimeout(r, 50));
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
      expect(sessions.size).toBe(2);
    },
  );
});

test("a service URL other than http:// is refused when the client is made, not at the first call", () => {
  expect(() => createGrpcUnaryClient("https://data.internal:443")).toThrow("the gateway speaks h2c");
});

test("a call the service refuses (REFUSED_STREAM: it never ran) is sent once more", async () => {
  let streams = 0;
  await withServer(
    (stream) => {
      stream.on("error", () => {});
      if (streams++ === 0) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      answerOk(stream);
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
      expect(streams).toBe(2);
    },
  );
});

test("a call refused twice fails with Unavailable (one retry, not a loop)", async () => {
  let streams = 0;
  await withServer(
    (stream) => {
      streams++;
      stream.on("error", () => {});
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      client.close();
      expect((error as ConnectError).code).toBe(Code.Unavailable);
      expect(streams).toBe(2);
    },
  );
});

test("after 10,000 calls the client moves to a new connection without failing a call", async () => {
  const sessions = new Set<http2.Http2Session>();
  await withServer(
    (stream) => {
      sessions.add(stream.session!);
      answerOk(stream);
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      let succeeded = 0;
      for (let batch = 0; batch < 101; batch++) {
        const calls = Array.from({ length: 100 }, () => client.call(DataService.method.getDataset, request(), options));
        succeeded += (await Promise.all(calls)).length;
      }
      client.close();
      expect(succeeded).toBe(10_100);
      expect(sessions.size).toBe(2);
    },
  );
});
