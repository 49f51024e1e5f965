import type { IncomingMessage, ServerResponse } from "node:http";
import { getOption, hasOption, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Principal } from "@hangar/shared";
import { anonymous } from "@hangar/shared/proto/common";

/** How the gateway bounds an operation served without a token (`hangar.common.v1.anonymous`). */
export interface AnonymousAccess {
  maxBodyBytes: number;
  requestsPerMinute: number;
}

/** The RPC's anonymous access, or undefined when it needs a token (the default). Throws at start-up on a zero bound. */
export function anonymousAccessOf(method: DescMethod): AnonymousAccess | undefined {
  if (!hasOption(method, anonymous)) return undefined;
  const { maxBodyBytes, requestsPerMinute } = getOption(method, anonymous);
  if (maxBodyBytes === 0 || requestsPerMinute === 0) throw new Error(`${method.name}: an anonymous operation needs max_body_bytes and requests_per_minute`);
  return { maxBodyBytes, requestsPerMinute };
}

/** Admits or refuses one anonymous request of an operation (`key`) from a client address. */
export type AnonymousLimiter = (key: string, address: string, perMinute: number, res: ServerResponse) => void;

/**
 * A fixed one-minute window per operation and client address, in this replica's memory: a client
 * past the bound gets 429 with `Retry-After` (the seconds left in the window). Memory is bounded:
 * the windows are forgotten when the minute turns, and at most `maxClients` are kept within one.
 */
export function createAnonymousLimiter(now: () => number = Date.now, maxClients = 100_000): AnonymousLimiter {
  let minute = -1;
  let counts = new Map<string, number>();
  return (key, address, perMinute, res) => {
    const at = now();
    const current = Math.floor(at / 60_000);
    if (current !== minute || counts.size >= maxClients) {
      minute = current;
      counts = new Map();
    }
    const id = `${key} ${address}`;
    const count = (counts.get(id) ?? 0) + 1;
    counts.set(id, count);
    if (count <= perMinute) return;
    res.setHeader("retry-after", String(Math.ceil(((current + 1) * 60_000 - at) / 1000)));
    throw new ConnectError("too many sign-in requests from this address; try again in a minute", Code.ResourceExhausted);
  };
}

/**
 * The principal of an anonymous request: no user, no org; `publicUrl` is where the client reached
 * the gateway (the configured one, else its Host over http), for URLs handed back to it.
 */
export function anonymousPrincipal(req: IncomingMessage, publicUrl: string | undefined): Principal {
  const host = req.headers.host;
  const base = publicUrl ?? (host !== undefined && HOST.test(host) ? `http://${host}` : undefined);
  return { kind: "anonymous", subject: "anonymous", memberships: [], isSystemAdmin: false, ...(base ? { publicUrl: base } : {}) };
}

/** A Host header fit to build a URL on: a name or address and a port, nothing else. */
const HOST = /^[A-Za-z0-9.\-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

/** The client's address as this replica sees it (the socket's peer). */
export function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? "unknown";
}
