/** One segment of a parsed template: a literal, `*` (exactly one non-empty segment) or `**` (the rest). */
export type TemplateSegment =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "wildcard" }
  | { readonly kind: "rest" };

/**
 * A `{field}` binding: the request field it fills (`query.id` is `["query", "id"]`) and the
 * segments it covers, `end` exclusive, or `undefined` when it ends with a `**` (to the path's end).
 */
export interface TemplateVariable {
  readonly name: string;
  readonly fieldPath: readonly string[];
  readonly start: number;
  readonly end: number | undefined;
}

/** A google.api.http path template split into segments, with its variable bindings. */
export interface PathTemplate {
  readonly template: string;
  readonly segments: readonly TemplateSegment[];
  readonly variables: readonly TemplateVariable[];
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const literalText = /^[A-Za-z0-9\-._~!$&'()+,;=:@]+$/;

/**
 * Parses a google.api.http path template such as `/v1/datasets/{dataset_id}` or
 * `/v1/blobs/{name=buckets/*}/{path=**}`. Throws a plain Error on a malformed template: templates
 * come from the service descriptors, so a bad one is a build defect, not a client error.
 */
export function parsePathTemplate(template: string): PathTemplate {
  const fail = (why: string): never => {
    throw new Error(`invalid path template '${template}': ${why}`);
  };
  if (!template.startsWith("/")) fail("must start with '/'");
  const segments: TemplateSegment[] = [];
  const variables: TemplateVariable[] = [];
  for (const part of splitTemplate(template.slice(1), fail)) {
    if (!part.startsWith("{")) {
      segments.push(parseSegment(part, fail));
      continue;
    }
    const inner = part.slice(1, -1);
    const eq = inner.indexOf("=");
    const name = eq < 0 ? inner : inner.slice(0, eq);
    const fieldPath = name.split(".");
    if (!fieldPath.every((p) => identifier.test(p))) fail(`bad variable name '${name}'`);
    if (variables.some((v) => v.name === name)) fail(`variable '${name}' appears twice`);
    const start = segments.length;
    const body = eq < 0 ? "*" : inner.slice(eq + 1);
    for (const sub of body.split("/")) segments.push(parseSegment(sub, fail));
    const last = segments[segments.length - 1];
    variables.push({ name, fieldPath, start, end: last?.kind === "rest" ? undefined : segments.length });
  }
  const restAt = segments.findIndex((s) => s.kind === "rest");
  if (restAt >= 0 && restAt !== segments.length - 1) fail("'**' must be the last segment");
  return { template, segments, variables };
}

/** Splits on `/` outside braces, so `{name=a/*}` stays one part. */
function splitTemplate(path: string, fail: (why: string) => never): string[] {
  if (path === "") return [];
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === "{") {
      if (depth > 0 || i !== from) fail("'{' must open a whole segment");
      depth++;
    } else if (c === "}") {
      if (depth === 0 || (i + 1 < path.length && path[i + 1] !== "/")) fail("'}' must close a whole segment");
      depth--;
    } else if (c === "/" && depth === 0) {
      parts.push(path.slice(from, i));
      from = i + 1;
    }
  }
  if (depth !== 0) fail("unclosed '{'");
  parts.push(path.slice(from));
  return parts;
}

function parseSegment(text: string, fail: (why: string) => never): TemplateSegment {
  if (text === "*") return { kind: "wildcard" };
  if (text === "**") return { kind: "rest" };
  if (!literalText.test(text)) fail(`bad segment '${text}'`);
  return { kind: "literal", text };
}
