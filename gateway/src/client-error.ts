import type { Socket } from "node:net";
import { errorEnvelope } from "./errors";

/** Largest request line plus headers the gateway parses: Node's default `maxHeaderSize`. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** How long a refused client may keep sending (the rest of a huge URL) before its socket is closed. */
const DRAIN_MS = 5_000;

const answered = new WeakSet<Socket>();

/**
 * Answers a request Node's HTTP parser refused (a URL or headers past `MAX_HEADER_BYTES`, a malformed
 * request line) with the error envelope, where Node's default is an empty body or, for a client still
 * sending a megabyte-long URL, a reset: closing a socket with unread data makes the kernel send RST,
 * and the client loses the answer. So the answer is written, the socket half-closed, and whatever
 * the client still sends is read and dropped until it closes (or `DRAIN_MS` passes).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (error.code === "ECONNRESET" || !socket.writable || responseStarted(socket)) return void socket.destroy();
  const [status, reason, message] = describe(error.code);
  const body = errorEnvelope(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.on("data", () => {});
  socket.on("error", () => {});
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

/**
 * Whether an answer to an earlier request on this kept-alive connection has begun: our raw answer
 * would then land inside it, so the socket can only be closed. Node's own default handler asks the
 * same of the socket's current response (`_httpMessage`); bytes written before are earlier answers.
 */
function responseStarted(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  return current?.headersSent === true;
}

function describe(code: string | undefined): [number, string, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", `the request line and headers exceed ${MAX_HEADER_BYTES} bytes`];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "the request was not received in time"];
    default:
      return [400, "Bad Request", "malformed HTTP request"];
  }
}
