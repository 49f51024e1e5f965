import { badRequest } from "@hangar/shared";

// Every integer below 10**15 is exact as a double, so text without a run of 16 digits parses natively.
const longDigitRun = /\d{16}/;
// Up to 20 digits: the widest integer field is uint64. A longer literal is out of range for every
// field, so it stays a (non-integer or infinite) double instead of costing a BigInt parse of its digits.
const integerLiteral = /^-?\d{1,20}$/;

/**
 * Deepest nesting of arrays and objects a body may have (the body itself is level 1). The
 * services' declared limits allow a JSON field 32 levels (`max_depth`, checked by the limits
 * interceptor with a message naming the field), and the deepest such field starts at level 3 (a
 * changeset's `put_fields`), so 40 lets every valid body through. Services decode protobuf with
 * a recursion limit of 100 messages and every JSON level inside a Struct costs two (Struct and
 * Value), so deeper bodies could only fail later, as internal errors.
 */
export const MAX_JSON_DEPTH = 40;

/**
 * Parses a request body strictly (RFC 8259). Integers outside the safe double range become
 * `bigint` with their exact digits; every other number stays a JS number. Empty or blank text
 * yields `undefined` (no body); malformed JSON, or nesting deeper than `MAX_JSON_DEPTH`, is a 400.
 */
export function readJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  let json: unknown;
  try {
    json = longDigitRun.test(text) ? JSON.parse(text, keepExactIntegers) : JSON.parse(text);
  } catch (e) {
    if (e instanceof SyntaxError) throw badRequest(`malformed JSON: ${e.message}`);
    // The reviver recurses once per level, so a very deep body overflows the stack before checkDepth.
    if (e instanceof RangeError) throw tooDeep();
    throw e;
  }
  checkDepth(json);
  return json;
}

function tooDeep() {
  return badRequest(`request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
}

/** Walks the parsed body with an explicit stack, so that a deep body cannot overflow the call stack. */
function checkDepth(root: unknown): void {
  const stack: { value: object; depth: number }[] = [];
  const push = (value: unknown, depth: number) => {
    if (typeof value !== "object" || value === null) return;
    if (depth > MAX_JSON_DEPTH) throw tooDeep();
    stack.push({ value, depth });
  };
  push(root, 1);
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    for (const child of Object.values(top.value)) push(child, top.depth + 1);
  }
}

/** A reviver using JSON.parse source text access (Node 22+) to recover the digits a double lost. */
function keepExactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  if (source === undefined) throw new Error("readJsonBody needs JSON.parse source text access (Node 22 or later)");
  return integerLiteral.test(source) ? BigInt(source) : value;
}
