import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestStore, type TestStore } from "./embedded-store.fixture";

// S3 clients pool connections and reuse an idle one whenever they send the next request. A server
// that closes idle connections sooner than the gaps between a client's requests races that reuse,
// and the client gets ECONNRESET (seen under load during a 50 MiB multipart upload, whose parts
// come seconds apart). Node's default is 5 s; the store keeps idle connections for a minute.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.stop());

/** Sends one request on `socket` and resolves with the response's status line once its body is read. */
function exchange(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const headerEnd = received.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
      if (headerEnd >= 0 && length !== undefined && received.length >= headerEnd + 4 + Number(length)) {
        socket.off("data", onData);
        resolve(received.slice(0, received.indexOf("\r\n")));
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    const { host } = new URL(store.store.url);
    socket.write(`GET /hangar/probe HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

test("an idle keep-alive connection is still open, and serves the next request, after Node's default 5 s", async () => {
  const { hostname, port } = new URL(store.store.url);
  const socket = connect(Number(port), hostname);
  let closedAt: number | undefined;
  socket.once("close", () => (closedAt = Date.now()));
  try {
    // Unsigned: the store refuses it (403), on a connection it keeps.
    expect(await exchange(socket)).toBe("HTTP/1.1 403 Forbidden");
    await sleep(6_500);
    expect(closedAt).toBeUndefined();
    expect(await exchange(socket)).toBe("HTTP/1.1 403 Forbidden");
  } finally {
    socket.destroy();
  }
}, 20_000);
