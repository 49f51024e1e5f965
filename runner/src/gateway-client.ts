/** A failed call to the gateway: its HTTP status and the error envelope's message. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "GatewayError";
  }
}

/** The platform's HTTP API as the runner uses it, with an invocation's API token. */
export interface GatewayClient {
  /** Sends a JSON request and returns the envelope's `data`; throws GatewayError on an error status. */
  call<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
}

/** A client of the gateway at `baseUrl` that authenticates with `apiKey`. */
export function createGatewayClient(baseUrl: string, apiKey: string): GatewayClient {
  return {
    async call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
      const text = await response.text();
      if (!response.ok) throw new GatewayError(response.status, `${method} ${path}: ${response.status} ${errorMessage(text)}`);
      return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
    },
  };
}

/** The error envelope's message, or the body as it came (a proxy's page, say). */
function errorMessage(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    return text;
  }
}
