import { parseRange } from "./parse-range";

test.each([
  ["bytes=0-9", { start: 0, end: 9 }],
  ["bytes=990-", { start: 990, end: 999 }],
  ["bytes=-10", { start: 990, end: 999 }],
  ["bytes=-5000", { start: 0, end: 999 }],
  ["bytes=500-5000", { start: 500, end: 999 }],
  // S3 answers the whole object for what it does not support or cannot read.
  ["bytes=0-1,5-6", undefined],
  ["items=0-1", undefined],
  ["bytes=9-0", undefined],
  [undefined, undefined],
])("Range %s over 1000 bytes is %j", (header, expected) => {
  expect(parseRange(header, 1000)).toEqual(expected);
});

test.each([["bytes=1000-"], ["bytes=-0"]])("Range %s over 1000 bytes is 416 InvalidRange with the size in Content-Range", (header) => {
  expect(() => parseRange(header, 1000)).toThrow(expect.objectContaining({ code: "InvalidRange", status: 416, headers: { "content-range": "bytes */1000" } }));
});
