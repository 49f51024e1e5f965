import type { IncomingHttpHeaders } from "node:http2";

/** A header's value as one string (repeated values joined with ", "), or null when absent. */
export function headerText(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
}

/** The request's metadata (pseudo-headers left out) as WHATWG Headers, as Connect hands them to handlers. */
export function requestHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const name of Object.keys(headers)) {
    if (name.charCodeAt(0) === 58 /* ":" */) continue;
    const value = headers[name];
    if (Array.isArray(value)) for (const item of value) out.append(name, item);
    else if (value !== undefined) out.append(name, value);
  }
  return out;
}

/** WHATWG Headers as the plain object Node's http2 `respond` and `sendTrailers` take; none gives {}. */
export function plainHeaders(headers: Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  headers?.forEach((value, name) => (out[name] = value));
  return out;
}
