#!/usr/bin/env node
// hangarctl: a small admin CLI for Hangar's HTTP API (orgs, users, roles, API tokens).
// No dependencies: Node >= 20 (global fetch, util.parseArgs). Run `node scripts/hangarctl.mjs help`.
import { parseArgs } from "node:util";

const USAGE = `hangarctl: set up orgs, users and API tokens through the Hangar gateway

usage: node scripts/hangarctl.mjs <command> [args] [--url URL] [--token TOKEN] [--json]

commands:
  whoami                                        show the calling user
  orgs                                          list the caller's orgs
  create-org <name>                             create an org (the caller becomes its owner)
  create-user <user_id> --org <org_id> [--name N]
                                                create a user in an org
  create-token --name N [--expiry-days 30] [--as <user_id>]
                                                create an API token (for another user: system admins only)
  roles <org_id> <user_id> [--add r1,r2] [--remove r3]
                                                change a member's roles (owner, admin, user)
  setup-two-orgs [--names a,b]                  two orgs with one user and one 30-day token each
  help                                          show this text

options:
  --url URL      gateway URL (env HANGAR_URL; default http://127.0.0.1:$PORT, PORT defaulting to 8080 as npm start does)
  --token TOKEN  admin API token (env HANGAR_TOKEN)
  --json         print the response's data as raw JSON (for scripts: ... --json | jq -r .org_id)
`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean", default: false },
  org: { type: "string" },
  name: { type: "string" },
  "expiry-days": { type: "string", default: "30" },
  as: { type: "string" },
  add: { type: "string" },
  remove: { type: "string" },
  names: { type: "string", default: "team-a,team-b" },
  help: { type: "boolean", short: "h", default: false },
};

/** A failure to report to the user: printed as one line, exit code 1. */
class CliError extends Error {}

// ---- the commands: each takes (api, positionals, flags) and prints its result ----

const COMMANDS = {
  // GET /v1/users/whoami: the user the token belongs to.
  whoami: async (api, _args, flags) => show(flags, await api("GET", "/v1/users/whoami")),

  // GET /v1/orgs/caller: the orgs the caller belongs to.
  orgs: async (api, _args, flags) =>
    show(flags, await api("GET", "/v1/orgs/caller"), (orgs) => table(orgs, ["org_id", "name", "tier", "status"])),

  // POST /v1/orgs {name}: a new org owned by the caller.
  "create-org": async (api, args, flags) => {
    const name = need(args[0], "create-org needs <name>");
    show(flags, await api("POST", "/v1/orgs", { name }));
  },

  // POST /v1/users {user_id, org_id, name} in the org given by X-Service-Org-Id.
  "create-user": async (api, args, flags) => {
    const userId = need(args[0], "create-user needs <user_id>");
    const orgId = need(flags.org, "create-user needs --org <org_id>");
    const body = { user_id: userId, org_id: orgId, ...(flags.name ? { name: flags.name } : {}) };
    show(flags, await api("POST", "/v1/users", body, { "X-Service-Org-Id": orgId }));
  },

  // POST /v1/tokens {name, expiry_days}; --as <user_id> creates it for another user.
  "create-token": async (api, _args, flags) => {
    const name = need(flags.name, "create-token needs --name N");
    const token = await createToken(api, name, expiryDays(flags), flags.as);
    show(flags, token, (t) => {
      console.log(`token ${t.context?.token_id ?? ""} for ${t.user_id ?? ""}, expires ${t.context?.expires ?? "never"}`);
      console.log(`secret (shown once): ${t.secret}`);
    });
  },

  // PUT /v1/orgs/id/{org_id}/users/id/{user_id} {add_roles, remove_roles}.
  roles: async (api, args, flags) => {
    const orgId = need(args[0], "roles needs <org_id> <user_id>");
    const userId = need(args[1], "roles needs <org_id> <user_id>");
    const body = { add_roles: list(flags.add), remove_roles: list(flags.remove) };
    const path = `/v1/orgs/id/${encodeURIComponent(orgId)}/users/id/${encodeURIComponent(userId)}`;
    show(flags, await api("PUT", path, body), () => console.log(`updated the roles of ${userId} in ${orgId}`));
  },

  // Two orgs, one user and one 30-day token in each; prints a table and `export` lines.
  "setup-two-orgs": async (api, _args, flags) => {
    const names = list(flags.names);
    if (names.length !== 2) throw new CliError("--names takes two org names: a,b");
    const rows = [];
    for (const name of names) {
      const org = await api("POST", "/v1/orgs", { name });
      const userId = `${name}-user@example.com`;
      await api("POST", "/v1/users", { user_id: userId, org_id: org.org_id }, { "X-Service-Org-Id": org.org_id });
      const token = await createToken(api, `${name}-token`, 30, userId, org.org_id);
      rows.push({ org: name, org_id: org.org_id, user_id: userId, token: token.secret });
    }
    show(flags, rows, () => {
      table(rows, ["org", "org_id", "user_id", "token"]);
      console.log();
      rows.forEach((row, i) => {
        const prefix = `ORG_${String.fromCharCode(65 + i)}`; // ORG_A, ORG_B
        console.log(`export ${prefix}_ID=${row.org_id}\nexport ${prefix}_USER=${row.user_id}\nexport ${prefix}_TOKEN=${row.token}`);
      });
    });
  },

  // Prints the usage text.
  help: async () => process.stdout.write(USAGE),
};

// ---- helpers ----

/** Creates an API token, acting as `asUser` when given (X-Service-User-Id). */
function createToken(api, name, expiryDays, asUser, orgId) {
  const headers = { ...(asUser ? { "X-Service-User-Id": asUser } : {}), ...(orgId ? { "X-Service-Org-Id": orgId } : {}) };
  return api("POST", "/v1/tokens", { name, expiry_days: expiryDays }, headers);
}

/** Returns a function that calls the gateway and unwraps the `{data}` / `{error}` envelope. */
function client(baseUrl, token) {
  return async (method, path, body, headers = {}) => {
    const url = new URL(path, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
    let response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          Accept: "application/json",
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
          ...headers,
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new CliError(`cannot reach ${url.origin}: ${error.cause?.message ?? error.message}`);
    }
    const text = await response.text();
    let envelope;
    try {
      envelope = text ? JSON.parse(text) : {};
    } catch {
      throw new CliError(`${method} ${path}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok || envelope.error) {
      const message = envelope.error?.message ?? `HTTP ${response.status}`;
      throw new CliError(`${method} ${path}: ${message} (HTTP ${response.status})`);
    }
    return envelope.data;
  };
}

/** Prints `data` as raw JSON with --json, else with `pretty` (default: one `key: value` per line). */
function show(flags, data, pretty = fields) {
  if (flags.json) console.log(JSON.stringify(data, null, 2));
  else pretty(data);
}

/** Prints an object's set scalar fields, one per line. */
function fields(object) {
  if (object === undefined || object === null) return console.log("ok");
  const entries = Object.entries(object).filter(([, v]) => v !== null && typeof v !== "object");
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  for (const [key, value] of entries) console.log(`${key.padEnd(width)}  ${value}`);
}

/** Prints rows as an aligned text table with the given columns. */
function table(rows, columns) {
  const cells = [columns, ...(rows ?? []).map((row) => columns.map((c) => String(row[c] ?? "")))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  for (const row of cells) console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd());
}

/** Splits a comma-separated flag into a list (empty when absent). */
function list(value) {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

/** Parses --expiry-days as a positive integer. */
function expiryDays(flags) {
  const days = Number(flags["expiry-days"]);
  if (!Number.isInteger(days) || days < 1) throw new CliError("--expiry-days must be a positive integer");
  return days;
}

/** Returns `value`, or fails with `message` when it is missing. */
function need(value, message) {
  if (value === undefined || value === "") throw new CliError(`${message} (see: hangarctl help)`);
  return value;
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${error.message} (see: hangarctl help)`);
  }
  const { values: flags, positionals } = parsed;
  const [name = "help", ...args] = flags.help ? ["help"] : positionals;
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new CliError(`unknown command '${name}' (see: hangarctl help)`);
  const url = flags.url ?? process.env.HANGAR_URL ?? `http://127.0.0.1:${process.env.PORT || 8080}`;
  const token = flags.token ?? process.env.HANGAR_TOKEN;
  if (name !== "help" && !token) throw new CliError("no API token: set HANGAR_TOKEN or pass --token");
  await command(client(url, token), args, flags);
}

main().catch((error) => {
  if (!(error instanceof CliError)) throw error;
  console.error(`hangarctl: ${error.message}`);
  process.exit(1);
});
