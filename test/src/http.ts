/** A response as the tests look at it: status and parsed JSON body. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Headers a call may add, such as `X-Service-Org-Id`. */
export type ExtraHeaders = Record<string, string>;

/** A small HTTP client of the gateway for one caller. */
export interface ApiClient {
  get<T = any>(path: string, headers?: ExtraHeaders): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, body?: unknown, headers?: ExtraHeaders): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: ExtraHeaders): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, headers?: ExtraHeaders): Promise<ApiResponse<T>>;
  /** Sends a raw body, for malformed-JSON tests. */
  raw<T = any>(method: string, path: string, body: string, headers?: ExtraHeaders): Promise<ApiResponse<T>>;
}

/** Creates a client that sends `Authorization: Bearer <token>` (when given) on every call. */
export function apiClient(baseUrl: string, token?: string, defaults: ExtraHeaders = {}): ApiClient {
  const send = async (method: string, path: string, body: string | undefined, headers: ExtraHeaders = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...defaults,
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
  const json = (body: unknown) => (body === undefined ? undefined : JSON.stringify(body));
  return {
    get: (path, headers) => send("GET", path, undefined, headers),
    delete: (path, body, headers) => send("DELETE", path, json(body), headers),
    post: (path, body, headers) => send("POST", path, json(body), headers),
    put: (path, body, headers) => send("PUT", path, json(body), headers),
    raw: (method, path, body, headers) => send(method, path, body, headers),
  };
}

/**
 * The API version the 0.62 SDK pins its legacy trigger calls to (sdk-0.62-routes.md row 10): from
 * 2026-08-27 on, create_trigger refuses the legacy body (`action_name`, `for_each`, `causes`, ...),
 * so tests of the legacy model send it as that client does.
 */
export const LEGACY_TRIGGERS: ExtraHeaders = { "X-Roboto-Api-Version": "2026-08-10" };
