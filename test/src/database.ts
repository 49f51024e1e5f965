import { randomBytes } from "node:crypto";
import { Client } from "pg";

/** Creates a fresh database on the test server so each test file has its own schemas. */
export async function createTestDatabase(baseUrl = requiredEnv("HANGAR_TEST_DATABASE_URL")): Promise<string> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  const client = new Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Reads a variable the global setup must have set. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest's global setup (npm test)`);
  return value;
}
