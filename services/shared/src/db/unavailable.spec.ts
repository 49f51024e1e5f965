import { createServer } from "node:net";
import { ConnectionException, UniqueConstraintViolationException } from "@mikro-orm/core";
import { Client } from "pg";
import { isDatabaseUnavailable } from "./unavailable";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test.each([
  ["a refused connection", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
  ["an administrator shutdown (57P01)", withCode("terminating connection due to administrator command", "57P01")],
  ["a server starting up (57P03)", withCode("the database system is starting up", "57P03")],
  ["a connection exception (class 08)", withCode("connection failure", "08006")],
  ["a connection pg saw end", new Error("Connection terminated unexpectedly")],
  ["pg's connect timeout", new Error("timeout expired")],
  ["knex's pool timeout", new Error("Knex: Timeout acquiring a connection. The pool is probably full.")],
  ["MikroORM's wrapper of a refused connection", new ConnectionException(withCode("connect ECONNREFUSED", "ECONNREFUSED"))],
  ["a cause chain", new Error("query failed", { cause: withCode("read ECONNRESET", "ECONNRESET") })],
  ["an AggregateError of connection attempts", new AggregateError([withCode("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")], "")],
])("%s is an outage", (_, error) => {
  expect(isDatabaseUnavailable(error)).toBe(true);
});

test.each([
  ["a unique violation", new UniqueConstraintViolationException(withCode("duplicate key value", "23505"))],
  ["a syntax error", withCode("syntax error at or near", "42601")],
  ["a plain error", new Error("something else")],
  ["a non-error", "Connection terminated"],
])("%s is not an outage", (_, error) => {
  expect(isDatabaseUnavailable(error)).toBe(false);
});

test("pg's error for a server that is not running is an outage", async () => {
  const server = createServer();
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  await new Promise((resolve) => server.close(resolve));
  const error = await new Client({ host: "127.0.0.1", port }).connect().catch((e: unknown) => e);
  expect(isDatabaseUnavailable(error)).toBe(true);
});
