import type { ApiResponse } from "./http";

/** Asserts a 400 in the error envelope whose message starts with the named field (`field: ...`). */
export function expectBadRequest(res: ApiResponse, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: { error_code: 400, message: expect.any(String), stack_trace: "" } });
  expect(res.body.error.message).toMatch(new RegExp(`^${escapeRegExp(field)}: `));
}

/** Escapes text for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Asserts the error envelope exactly: the status, `error_code`, `message` and an empty `stack_trace`. */
export function expectError(res: ApiResponse, status: number, message: string | RegExp): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: { error_code: status, message: typeof message === "string" ? message : expect.stringMatching(message), stack_trace: "" } },
  });
}
