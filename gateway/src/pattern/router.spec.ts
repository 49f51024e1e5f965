import { Code, ConnectError } from "@connectrpc/connect";
import { createRouter, type RouteMatch, type RouteMiss, type Router } from "./router";

const routes: [string, string][] = [
  ["POST", "/v1/datasets"],
  ["GET", "/v1/datasets/{dataset_id}"],
  ["PUT", "/v1/datasets/{dataset_id}"],
  ["DELETE", "/v1/datasets/{dataset_id}"],
  ["POST", "/v1/datasets/query"],
  ["GET", "/v1/datasets/metadata/keys"],
  ["GET", "/v1/datasets/{dataset_id}/directory/{directory_path}/count"],
  ["GET", "/v1/files/record/path/{url_quoted_file_path}/association/{association_id}"],
  ["GET", "/v1/comments/{comment_id}"],
  ["GET", "/v1/comments/type/{entity_type}"],
  ["GET", "/v1/comments/{entity_type}/{entity_id}"],
  ["GET", "/v1/queries/{query.id}"],
  ["GET", "/v1/blobs/{path=**}"],
  ["GET", "/v1/blobs/special"],
  ["GET", "/v1/{name=shelves/*}/books"],
];

function build(order: [string, string][]): Router<string> {
  const router = createRouter<string>();
  for (const [method, template] of order) router.add(method, template, `${method} ${template}`);
  return router;
}

type Expected = { route: string; params: Record<string, string> } | RouteMiss;

function simplify(result: RouteMatch<string> | RouteMiss): Expected {
  return "error" in result ? result : { route: result.value, params: result.params };
}

const cases: [string, string, Expected][] = [
  ["POST", "/v1/datasets", { route: "POST /v1/datasets", params: {} }],
  ["POST", "/v1/datasets/", { route: "POST /v1/datasets", params: {} }],
  ["GET", "/v1/datasets/ds_1", { route: "GET /v1/datasets/{dataset_id}", params: { dataset_id: "ds_1" } }],
  ["get", "/v1/datasets/ds_1/", { route: "GET /v1/datasets/{dataset_id}", params: { dataset_id: "ds_1" } }],
  ["POST", "/v1/datasets/query", { route: "POST /v1/datasets/query", params: {} }],
  ["GET", "/v1/datasets/metadata/keys", { route: "GET /v1/datasets/metadata/keys", params: {} }],
  // A literal that matches only under another method falls back to the variable route of this method.
  ["GET", "/v1/datasets/query", { route: "GET /v1/datasets/{dataset_id}", params: { dataset_id: "query" } }],
  ["GET", "/v1/datasets/metadata", { route: "GET /v1/datasets/{dataset_id}", params: { dataset_id: "metadata" } }],
  [
    "GET",
    "/v1/datasets/ds_1/directory/a%2Fb%2Fc/count",
    { route: "GET /v1/datasets/{dataset_id}/directory/{directory_path}/count", params: { dataset_id: "ds_1", directory_path: "a/b/c" } },
  ],
  [
    "GET",
    "/v1/files/record/path/dir%2Fa%2520b.txt/association/ds_1",
    {
      route: "GET /v1/files/record/path/{url_quoted_file_path}/association/{association_id}",
      params: { url_quoted_file_path: "dir/a%20b.txt", association_id: "ds_1" },
    },
  ],
  ["GET", "/v1/comments/cm_1", { route: "GET /v1/comments/{comment_id}", params: { comment_id: "cm_1" } }],
  ["GET", "/v1/comments/type/dataset", { route: "GET /v1/comments/type/{entity_type}", params: { entity_type: "dataset" } }],
  ["GET", "/v1/comments/type", { route: "GET /v1/comments/{comment_id}", params: { comment_id: "type" } }],
  [
    "GET",
    "/v1/comments/dataset/ds_1",
    { route: "GET /v1/comments/{entity_type}/{entity_id}", params: { entity_type: "dataset", entity_id: "ds_1" } },
  ],
  ["GET", "/v1/queries/q_1", { route: "GET /v1/queries/{query.id}", params: { "query.id": "q_1" } }],
  ["GET", "/v1/blobs/a/b%2Fc/d", { route: "GET /v1/blobs/{path=**}", params: { path: "a/b/c/d" } }],
  ["GET", "/v1/blobs", { route: "GET /v1/blobs/{path=**}", params: { path: "" } }],
  ["GET", "/v1/blobs/special", { route: "GET /v1/blobs/special", params: {} }],
  ["GET", "/v1/shelves/s1/books", { route: "GET /v1/{name=shelves/*}/books", params: { name: "shelves/s1" } }],
  ["GET", "/v1/datasets//directory/x/count", { error: "not_found" }],
  ["GET", "/v1/unknown", { error: "not_found" }],
  ["GET", "", { error: "not_found" }],
  ["GET", "v1/datasets", { error: "not_found" }],
  ["PATCH", "/v1/datasets/ds_1", { error: "method_not_allowed", allowed: ["DELETE", "GET", "PUT"] }],
  ["GET", "/v1/datasets", { error: "method_not_allowed", allowed: ["POST"] }],
  ["PATCH", "/v1/datasets/query", { error: "method_not_allowed", allowed: ["DELETE", "GET", "POST", "PUT"] }],
];

describe("createRouter", () => {
  const inOrder = build(routes);
  const reversed = build([...routes].reverse());

  it.each(cases)("%s %s", (method, path, expected) => {
    expect(simplify(inOrder.match(method, path))).toEqual(expected);
  });

  it.each(cases)("%s %s (routes added in reverse)", (method, path, expected) => {
    expect(simplify(reversed.match(method, path))).toEqual(expected);
  });

  it("keeps the raw values beside the decoded ones", () => {
    const match = inOrder.match("GET", "/v1/files/record/path/my+file%2Fa%2Bb/association/ds_1");
    expect(match).toMatchObject({
      params: { url_quoted_file_path: "my+file/a+b", association_id: "ds_1" },
      rawParams: { url_quoted_file_path: "my+file%2Fa%2Bb", association_id: "ds_1" },
    });
  });

  it("answers a bad escape in a variable with a 400", () => {
    expect(() => inOrder.match("GET", "/v1/datasets/ds%zz")).toThrow(ConnectError);
    try {
      inOrder.match("GET", "/v1/datasets/ds%zz");
    } catch (e) {
      expect((e as ConnectError).code).toBe(Code.InvalidArgument);
    }
  });

  it("refuses a second route of the same method and shape", () => {
    const router = createRouter<number>();
    router.add("GET", "/v1/x/{a}", 1);
    router.add("POST", "/v1/x/{a}", 2);
    expect(() => router.add("get", "/v1/x/{b}", 3)).toThrow("route GET /v1/x/{b} clashes with /v1/x/{a}");
  });
});
