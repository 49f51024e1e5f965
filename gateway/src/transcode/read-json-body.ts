import { badRequest } from "@hangar/shared";

// Every integer below 10**15 is exact as a double, so text without a run of 16 digits parses natively.
const longDigitRun = /\d{16}/;
const integerLiteral = /^-?\d+$/;

/**
 * Parses a request body strictly (RFC 8259). Integers outside the safe double range become
 * `bigint` with their exact digits; every other number stays a JS number. Empty or blank text
 * yields `undefined` (no body); malformed JSON is a 400.
 */
export function readJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return longDigitRun.test(text) ? JSON.parse(text, keepExactIntegers) : JSON.parse(text);
  } catch (e) {
    if (e instanceof SyntaxError) throw badRequest(`malformed JSON: ${e.message}`);
    throw e;
  }
}

/** A reviver using JSON.parse source text access (Node 22+) to recover the digits a double lost. */
function keepExactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  if (source === undefined) throw new Error("readJsonBody needs JSON.parse source text access (Node 22 or later)");
  return integerLiteral.test(source) ? BigInt(source) : value;
}
