import type { FuzzOutcome } from "./send";

/** An answer the contract forbids, for the failure report. */
export interface FuzzOffence {
  readonly operation: string;
  readonly target: string;
  /** `class: mutation`. */
  readonly mutation: string;
  /** The HTTP status, or what happened instead of an answer. */
  readonly status: number | string;
  /** The start of the error message, or of the body when it is not the envelope. */
  readonly message: string;
}

const MESSAGE_PREFIX = 100;

/**
 * Judges one answer against the contract for bad input: a 2xx with the `{data}` envelope, or a 4xx
 * with exactly the error envelope `{error: {error_code, message, stack_trace}}` (error_code equal
 * to the status, no stack trace). Anything else, a 5xx, a hang or a dropped connection, is an offence.
 */
export function judgeOutcome(outcome: FuzzOutcome): FuzzOffence | undefined {
  const problem = problemOf(outcome);
  if (problem === undefined) return undefined;
  const { operation, target, mutationClass, mutation } = outcome.fuzzCase;
  return { operation, target, mutation: `${mutationClass}: ${mutation}`, ...problem };
}

function problemOf(outcome: FuzzOutcome): { status: number | string; message: string } | undefined {
  const { status, body = "", failure } = outcome;
  if (status === undefined) return { status: failure ?? "no answer", message: "" };
  const json = parse(body);
  if (status >= 200 && status < 300) {
    return isObjectWithKeys(json, ["data"]) ? undefined : { status, message: `not the data envelope: ${prefix(body)}` };
  }
  const error = isObjectWithKeys(json, ["error"]) ? json.error : undefined;
  const envelope = isObjectWithKeys(error, ["error_code", "message", "stack_trace"]) ? error : undefined;
  const message = typeof envelope?.message === "string" ? envelope.message : undefined;
  if (status >= 400 && status < 500 && envelope && message !== undefined && envelope.error_code === status && envelope.stack_trace === "") return undefined;
  return { status, message: message !== undefined ? prefix(message) : `not the error envelope: ${prefix(body)}` };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function isObjectWithKeys(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const actual = Object.keys(value).sort();
  return actual.length === keys.length && [...keys].sort().every((k, i) => actual[i] === k);
}

function prefix(text: string): string {
  return text.length > MESSAGE_PREFIX ? `${text.slice(0, MESSAGE_PREFIX)}...` : text;
}

/** One line for the log: requests sent, operations covered of the route table, and the status histogram. */
export function summarizeOutcomes(outcomes: readonly FuzzOutcome[], operationCount: number): string {
  const histogram = new Map<string, number>();
  for (const { status, failure } of outcomes) {
    const key = status === undefined ? (failure ?? "no answer") : String(status);
    histogram.set(key, (histogram.get(key) ?? 0) + 1);
  }
  const covered = new Set(outcomes.map((o) => o.fuzzCase.operation)).size;
  const statuses = [...histogram].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`);
  return `fuzz: ${outcomes.length} requests, ${covered} of ${operationCount} operations, statuses {${statuses.join(", ")}}`;
}

/** The offences as report lines, one per offence: operation, site, mutation, status and message start. */
export function formatOffences(offences: readonly FuzzOffence[]): string[] {
  return offences.map((o) => `${o.operation} ${o.target} [${o.mutation}] -> ${o.status} ${o.message}`);
}
