import type { DescMessage, Message } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { checkLimits } from "./check-limits";

/**
 * The interceptor that enforces every request field's declared limits (`(hangar.common.v1.limits)`)
 * before any handler runs, in every service (installed by startRpcServer), so that no RPC can
 * store, compile or echo an unbounded value. Streamed requests are checked message by message.
 */
export function enforceLimits(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      checkLimits(req.method.input, req.message);
      return next(req);
    }
    return next({ ...req, message: checkEach(req.method.input, req.message) });
  };
}

async function* checkEach(schema: DescMessage, messages: AsyncIterable<Message>): AsyncIterable<Message> {
  for await (const message of messages) {
    checkLimits(schema, message);
    yield message;
  }
}
