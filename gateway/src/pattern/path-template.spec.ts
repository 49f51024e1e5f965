import { parsePathTemplate, type TemplateSegment, type TemplateVariable } from "./path-template";

const lit = (text: string): TemplateSegment => ({ kind: "literal", text });
const star: TemplateSegment = { kind: "wildcard" };
const rest: TemplateSegment = { kind: "rest" };
const variable = (name: string, start: number, end: number | undefined): TemplateVariable => ({
  name,
  fieldPath: name.split("."),
  start,
  end,
});

describe("parsePathTemplate", () => {
  const valid: [string, TemplateSegment[], TemplateVariable[]][] = [
    ["/", [], []],
    ["/v1/datasets", [lit("v1"), lit("datasets")], []],
    ["/v1/datasets/{dataset_id}", [lit("v1"), lit("datasets"), star], [variable("dataset_id", 2, 3)]],
    ["/v1/datasets/{dataset_id=*}/count", [lit("v1"), lit("datasets"), star, lit("count")], [variable("dataset_id", 2, 3)]],
    [
      "/v1/files/record/path/{url_quoted_file_path}/association/{association_id}",
      [lit("v1"), lit("files"), lit("record"), lit("path"), star, lit("association"), star],
      [variable("url_quoted_file_path", 4, 5), variable("association_id", 6, 7)],
    ],
    [
      "/v1/datasets/{dataset_id}/directory/{directory_path}/count",
      [lit("v1"), lit("datasets"), star, lit("directory"), star, lit("count")],
      [variable("dataset_id", 2, 3), variable("directory_path", 4, 5)],
    ],
    ["/v1/queries/{query.id}", [lit("v1"), lit("queries"), star], [variable("query.id", 2, 3)]],
    ["/v1/blobs/{path=**}", [lit("v1"), lit("blobs"), rest], [variable("path", 2, undefined)]],
    ["/v1/{name=shelves/*}/books", [lit("v1"), lit("shelves"), star, lit("books")], [variable("name", 1, 3)]],
    ["/v1/*/x", [lit("v1"), star, lit("x")], []],
  ];
  it.each(valid)("parses %s", (template, segments, variables) => {
    expect(parsePathTemplate(template)).toEqual({ template, segments, variables });
  });

  const invalid: [string, string][] = [
    ["v1/datasets", "must start with '/'"],
    ["/v1/{a}/{a}", "variable 'a' appears twice"],
    ["/v1/{a", "unclosed '{'"],
    ["/v1/x{a}", "'{' must open a whole segment"],
    ["/v1/{a}x", "'}' must close a whole segment"],
    ["/v1/{a-b}", "bad variable name 'a-b'"],
    ["/v1/{p=**}/tail", "'**' must be the last segment"],
    ["/v1/a b", "bad segment 'a b'"],
    ["/v1//x", "bad segment ''"],
  ];
  it.each(invalid)("rejects %s", (template, why) => {
    expect(() => parsePathTemplate(template)).toThrow(`invalid path template '${template}': ${why}`);
  });
});
