import http2 from "node:http2";
import net, { type AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } from "@hangar/shared/proto/data";
import { createGrpcUnaryClient } from "./grpc-unary-client";

/** A bare HTTP/2 server whose behaviour each test scripts, to exercise the client's wire handling. */
async function withServer(
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  run: (url: string, server: http2.Http2Server) => Promise<void>,
) {
  const server = http2.createServer();
  server.on("stream", onStream);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await run(url, server);
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
  let streamClosed!: () => void;
  const closed = new Promise<void>((resolve) => (streamClosed = resolve));
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.on("close", () => {
        resetCode = stream.rstCode;
        streamClosed();
      });
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
      await closed;
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
      // close's callback runs once the connection is gone, so the client has had its GOAWAY.
      await Promise.all([...sessions].map((session) => new Promise<void>((closed) => session.close(() => closed()))));
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

test("a call the service may have run (connection lost after it was sent) is not sent again", async () => {
  let streams = 0;
  await withServer(
    (stream) => {
      streams++;
      stream.on("error", () => {});
      stream.session?.destroy();
    },
    async (url) => {
      const client = createGrpcUnaryClient(url);
      const error = await client.call(DataService.method.getDataset, request(), options).catch((e: unknown) => e);
      client.close();
      expect((error as ConnectError).code).toBe(Code.Unavailable);
      expect(streams).toBe(1);
    },
  );
});

test("a call the service's GOAWAY left out (it never ran) is sent again on a fresh connection", async () => {
  let connections = 0;
  let streams = 0;
  await withServer(
    (stream) => {
      streams++;
      answerOk(stream);
    },
    async (url, server) => {
      // The first connection goes away at once: last stream id 0, so the call sent on it never ran.
      server.on("session", (session) => {
        if (connections++ === 0) session.goaway(http2.constants.NGHTTP2_NO_ERROR, 0);
      });
      const client = createGrpcUnaryClient(url);
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
      expect([connections, streams]).toEqual([2, 1]);
    },
  );
});

/** A TCP proxy whose open connections can be frozen (nothing forwarded either way), as when a pod vanishes without closing its sockets. */
async function withFreezableProxy(targetUrl: string, run: (url: string, freeze: () => void) => Promise<void>) {
  const target = new URL(targetUrl);
  const open: net.Socket[] = [];
  const all: net.Socket[] = [];
  const proxy = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("error", () => outbound.destroy());
    outbound.on("error", () => inbound.destroy());
    open.push(inbound, outbound);
    all.push(inbound, outbound);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const freeze = () => {
    for (const socket of open.splice(0)) {
      socket.unpipe();
      socket.pause();
    }
  };
  try {
    await run(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, freeze);
  } finally {
    for (const socket of all) socket.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }
}

test("a connection whose peer stops answering is retired by keepalive before the call's deadline, and the next call reconnects", async () => {
  await withServer(answerOk, (serverUrl) =>
    withFreezableProxy(serverUrl, async (url, freeze) => {
      const client = createGrpcUnaryClient(url, { keepaliveIntervalMs: 100, keepaliveTimeoutMs: 100 });
      await client.call(DataService.method.getDataset, request(), options);
      freeze();
      const error = await client.call(DataService.method.getDataset, request(), { ...options, timeoutMs: 30_000 }).catch((e: unknown) => e);
      expect((error as ConnectError).code).toBe(Code.Unavailable);
      expect((error as ConnectError).rawMessage).toContain("the peer stopped answering");
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
    }),
  );
});

test("a call that times out probes its connection: a dead one is retired for the calls still on it", async () => {
  await withServer(answerOk, (serverUrl) =>
    withFreezableProxy(serverUrl, async (url, freeze) => {
      // Idle keepalive far off: only the timed-out call can notice.
      const client = createGrpcUnaryClient(url, { keepaliveIntervalMs: 600_000, keepaliveTimeoutMs: 200 });
      await client.call(DataService.method.getDataset, request(), options);
      freeze();
      const short = client.call(DataService.method.getDataset, request(), { ...options, timeoutMs: 100 }).catch((e: unknown) => e);
      const long = client.call(DataService.method.getDataset, request(), { ...options, timeoutMs: 30_000 }).catch((e: unknown) => e);
      expect(((await short) as ConnectError).code).toBe(Code.DeadlineExceeded);
      expect(((await long) as ConnectError).code).toBe(Code.Unavailable);
      const response = await client.call(DataService.method.getDataset, request(), options);
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
    }),
  );
});

test("a slow service is not taken for a dead one: keepalive PINGs are answered while a call runs long", async () => {
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.on("end", () => setTimeout(() => respond(stream, reply, { "grpc-status": "0" }), 1_500));
    },
    async (url, server) => {
      let pings = 0;
      server.on("session", (session) => session.on("ping", () => pings++));
      // Many PINGs while the call runs, each given enough time to be answered on a loaded machine.
      const client = createGrpcUnaryClient(url, { keepaliveIntervalMs: 50, keepaliveTimeoutMs: 500 });
      const response = await client.call(DataService.method.getDataset, request(), { ...options, timeoutMs: 30_000 });
      client.close();
      expect(response.dataset?.datasetId).toBe("ds_1");
      expect(pings).toBeGreaterThan(0);
    },
  );
});
