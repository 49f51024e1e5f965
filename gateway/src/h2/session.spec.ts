import http2 from "node:http2";
import net, { type AddressInfo } from "node:net";
import type { HeaderField } from "./hpack";
import { H2ClientSession, type SessionOptions, type StreamAbortedError, type StreamHandler } from "./session";

/** What one stream delivered. */
interface Outcome {
  headers: HeaderField[][];
  body: Buffer;
  aborted?: StreamAbortedError;
}

function exchange(session: H2ClientSession, fields: HeaderField[], body: Buffer): { done: Promise<Outcome>; cancel: () => void } {
  const outcome: Outcome = { headers: [], body: Buffer.alloc(0) };
  const chunks: Buffer[] = [];
  let cancel = () => {};
  const done = new Promise<Outcome>((resolve) => {
    const handler: StreamHandler = {
      onHeaders: (headers) => outcome.headers.push(headers),
      onData: (chunk) => chunks.push(Buffer.from(chunk)),
      onEnd: () => resolve({ ...outcome, body: Buffer.concat(chunks) }),
      onAbort: (error) => resolve({ ...outcome, body: Buffer.concat(chunks), aborted: error }),
    };
    cancel = session.request(fields, body, handler).cancel;
  });
  return { done, cancel };
}

const post = (path: string, extra: HeaderField[] = []): HeaderField[] => [[":method", "POST"], [":scheme", "http"], [":authority", "test"], [":path", path], ...extra];
const header = (outcome: Outcome, index: number, name: string) => outcome.headers[index]?.find(([n]) => n === name)?.[1];

async function withServer(
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  run: (connect: (options?: SessionOptions) => H2ClientSession, server: http2.Http2Server) => Promise<void>,
  serverOptions: http2.ServerOptions = {},
) {
  const server = http2.createServer(serverOptions);
  server.on("stream", onStream);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const sessions: H2ClientSession[] = [];
  const connect = (options?: SessionOptions) => {
    const session = new H2ClientSession(net.connect(port, "127.0.0.1"), options);
    sessions.push(session);
    return session;
  };
  try {
    await run(connect, server);
  } finally {
    for (const session of sessions) session.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Echoes the request body back with a header naming its size, then trailers. */
function echo(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  stream.on("end", () => {
    const body = Buffer.concat(chunks);
    stream.respond({ ":status": 200, "x-size": String(body.length), "x-echo": String(headers["x-echo"] ?? "") }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "x-done": "yes" }));
    stream.end(body);
  });
}

test("many concurrent requests share one connection and each gets its own response, headers and trailers", async () => {
  await withServer(echo, async (connect) => {
    const session = connect();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => exchange(session, post("/echo", [["x-echo", `value-${i}-${"é".repeat(i % 7)}`]]), Buffer.from(`body ${i}`)).done),
    );
    outcomes.forEach((outcome, i) => {
      expect(outcome.aborted).toBeUndefined();
      expect(outcome.body.toString()).toBe(`body ${i}`);
      expect(header(outcome, 0, ":status")).toBe("200");
      // Varying values churn the peer's HPACK dynamic table (indexing and eviction on its side).
      expect(header(outcome, 0, "x-echo")).toBe(`value-${i}-${"é".repeat(i % 7)}`);
      expect(header(outcome, 1, "x-done")).toBe("yes");
    });
  });
});

test("a request body larger than the peer's windows is sent under flow control", async () => {
  await withServer(echo, async (connect) => {
    const body = Buffer.alloc(5 * 1024 * 1024 + 3, 7);
    const outcome = await exchange(connect(), post("/echo"), body).done;
    expect(outcome.aborted).toBeUndefined();
    expect(header(outcome, 0, "x-size")).toBe(String(body.length));
    expect(outcome.body.equals(body)).toBe(true);
  });
});

test("a response larger than the default windows arrives whole (our WINDOW_UPDATEs keep it flowing)", async () => {
  const big = Buffer.alloc(3 * 1024 * 1024, 1);
  await withServer(
    (stream) => {
      stream.on("data", () => {});
      stream.on("end", () => {
        stream.respond({ ":status": 200 });
        stream.end(big);
      });
    },
    async (connect) => {
      // Small windows force many WINDOW_UPDATEs from this side.
      const outcome = await exchange(connect({ windowSize: 65_535, maxFrameSize: 16_384 }), post("/big"), Buffer.from("x")).done;
      expect(outcome.aborted).toBeUndefined();
      expect(outcome.body.length).toBe(big.length);
    },
  );
});

test("a header block larger than the peer's frame size goes out as HEADERS and CONTINUATION frames", async () => {
  await withServer(echo, async (connect) => {
    const long = "v".repeat(40_000);
    const outcome = await exchange(connect(), post("/echo", [["x-echo", long]]), Buffer.from("x")).done;
    expect(outcome.aborted).toBeUndefined();
    expect(header(outcome, 0, "x-echo")).toBe(long);
  }, { maxSessionMemory: 64, settings: { maxHeaderListSize: 128 * 1024 } });
});

test("padded frames from the peer are unpadded", async () => {
  await withServer(echo, async (connect) => {
    const outcome = await exchange(connect(), post("/echo", [["x-echo", "padded"]]), Buffer.from("hello")).done;
    expect(outcome.body.toString()).toBe("hello");
    expect(header(outcome, 0, "x-echo")).toBe("padded");
  }, { paddingStrategy: http2.constants.PADDING_STRATEGY_MAX });
});

test("a trailers-only response ends the stream with its headers", async () => {
  await withServer(
    (stream) => stream.respond({ ":status": 200, "grpc-status": "5" }, { endStream: true }),
    async (connect) => {
      const outcome = await exchange(connect(), post("/x"), Buffer.from("x")).done;
      expect(outcome.aborted).toBeUndefined();
      expect(outcome.headers).toHaveLength(1);
      expect(header(outcome, 0, "grpc-status")).toBe("5");
    },
  );
});

test("a stream the peer refuses is aborted as refused, and the connection stays usable", async () => {
  let calls = 0;
  await withServer(
    (stream, headers) => {
      stream.on("error", () => {}); // the peer's own view of the reset it sends
      if (calls++ === 0) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      else echo(stream, headers);
    },
    async (connect) => {
      const session = connect();
      const refused = await exchange(session, post("/x"), Buffer.from("x")).done;
      expect(refused.aborted?.refused).toBe(true);
      expect(refused.aborted?.code).toBe(http2.constants.NGHTTP2_REFUSED_STREAM);
      const next = await exchange(session, post("/echo"), Buffer.from("again")).done;
      expect(next.body.toString()).toBe("again");
      expect(session.usable).toBe(true);
    },
  );
});

test("cancelling a stream resets it at the peer and its handler hears nothing more", async () => {
  let peerReset!: (code: number) => void;
  const reset = new Promise<number>((resolve) => (peerReset = resolve));
  await withServer(
    (stream) => stream.on("close", () => peerReset(stream.rstCode)),
    async (connect) => {
      const call = exchange(connect(), post("/slow"), Buffer.from("x"));
      let heard = false;
      void call.done.then(() => (heard = true));
      await new Promise((r) => setTimeout(r, 50));
      call.cancel();
      expect(await reset).toBe(http2.constants.NGHTTP2_CANCEL);
      await new Promise((r) => setTimeout(r, 20));
      expect(heard).toBe(false);
    },
  );
});

test("cancels past the reset budget abandon their streams without a reset, so a default Node server keeps the connection", async () => {
  const closed = { reset: 0, ended: 0 };
  const streamsSeen = new Set<number>();
  await withServer(
    (stream) => {
      streamsSeen.add(stream.id!);
      stream.on("error", () => {});
      stream.on("close", () => (stream.rstCode === http2.constants.NGHTTP2_CANCEL ? closed.reset++ : closed.ended++));
      // Each call ends by itself shortly (as a service's own deadline would end it).
      stream.on("data", () => {});
      setTimeout(() => !stream.closed && stream.respond({ ":status": 200 }, { endStream: true }), 100);
    },
    async (connect) => {
      // 1,500 cancels at once: nghttp2 (Node's http2) sends GOAWAY past 1,000 resets.
      const session = connect({ resetBurst: 500, resetsPerSecond: 1 });
      const calls = Array.from({ length: 1500 }, () => exchange(session, post("/x"), Buffer.from("x")));
      while (streamsSeen.size < 1500) await new Promise((r) => setTimeout(r, 10));
      for (const call of calls) call.cancel();
      const after = await exchange(session, post("/after"), Buffer.alloc(0)).done;
      expect(after.aborted).toBeUndefined();
      expect(header(after, 0, ":status")).toBe("200");
      expect(session.usable).toBe(true);
      while (closed.reset + closed.ended < 1501) await new Promise((r) => setTimeout(r, 10));
      expect(closed).toEqual({ reset: 500, ended: 1001 });
    },
  );
});

test("the peer's MAX_CONCURRENT_STREAMS holds requests back until streams close", async () => {
  let open = 0;
  let most = 0;
  await withServer(
    (stream, headers) => {
      most = Math.max(most, ++open);
      stream.on("close", () => open--);
      setTimeout(() => echo(stream, headers), 5);
    },
    async (connect) => {
      const session = connect();
      // The peer's SETTINGS open its side of the connection: any answer comes after them.
      await exchange(session, post("/echo"), Buffer.from("first")).done;
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => exchange(session, post("/echo"), Buffer.from(String(i))).done));
      expect(outcomes.map((o) => o.body.toString())).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
      expect(most).toBeLessThanOrEqual(2);
    },
    { settings: { maxConcurrentStreams: 2 } },
  );
});

test("a GOAWAY lets streams the peer accepted finish, refuses later ones and makes the session unusable", async () => {
  // Ordered by events, not sleeps: the peer sends GOAWAY once it holds the first stream, and
  // answers that stream only after the client has seen the GOAWAY.
  let arrived!: (peer: http2.Http2Session) => void;
  const peerSession = new Promise<http2.Http2Session>((resolve) => (arrived = resolve));
  let answer!: () => void;
  const goawaySeen = new Promise<void>((resolve) => (answer = resolve));
  await withServer(
    (stream, headers) => {
      arrived(stream.session!);
      void goawaySeen.then(() => echo(stream, headers));
    },
    async (connect) => {
      const session = connect();
      const accepted = exchange(session, post("/echo"), Buffer.from("first")).done;
      (await peerSession).goaway(http2.constants.NGHTTP2_NO_ERROR, 1);
      while (session.usable) await new Promise((r) => setTimeout(r, 5));
      const refused = await exchange(session, post("/echo"), Buffer.from("second")).done;
      expect(refused.aborted?.refused).toBe(true);
      answer();
      expect((await accepted).body.toString()).toBe("first");
    },
  );
});

test("PINGs from the peer are answered", async () => {
  let peer!: http2.Http2Session;
  await withServer(
    (stream, headers) => {
      peer = stream.session!;
      echo(stream, headers);
    },
    async (connect) => {
      await exchange(connect(), post("/echo"), Buffer.from("x")).done;
      const roundTrip = await new Promise<number>((resolve, reject) => peer.ping((error, duration) => (error ? reject(error) : resolve(duration))));
      expect(roundTrip).toBeGreaterThanOrEqual(0);
    },
  );
});

test("a peer speaking something else fails the open streams instead of crashing", async () => {
  const server = net.createServer((socket) => socket.resume().end("HTTP/1.1 400 Bad Request\r\n\r\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const session = new H2ClientSession(net.connect((server.address() as AddressInfo).port, "127.0.0.1"));
  const outcome = await exchange(session, post("/x"), Buffer.from("x")).done;
  expect(outcome.aborted).toBeDefined();
  expect(session.usable).toBe(false);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("after maxRequests the connection takes no more and closes once its streams finish", async () => {
  const peers = new Set<http2.Http2Session>();
  await withServer(
    (stream, headers) => {
      peers.add(stream.session!);
      echo(stream, headers);
    },
    async (connect) => {
      const session = connect({ maxRequests: 3 });
      const calls = [1, 2, 3].map((i) => exchange(session, post("/echo"), Buffer.from(String(i))).done);
      expect(session.usable).toBe(false);
      expect((await Promise.all(calls)).map((o) => o.body.toString())).toEqual(["1", "2", "3"]);
      const refused = await exchange(session, post("/echo"), Buffer.from("4")).done;
      expect(refused.aborted?.refused).toBe(true);
      // The peer's side closes once the session has said GOAWAY and its last stream ended.
      while (![...peers].every((peer) => peer.closed || peer.destroyed)) await new Promise((r) => setTimeout(r, 10));
    },
  );
});
