import { compareKeys, validateObjectKey } from "./object-key";

test.each(["a", "datasets/1/file.bin", "a b/ü€/x..y/.hidden", "a/...", "x".repeat(1024)])("key %s is accepted", (key) => {
  expect(() => validateObjectKey(key)).not.toThrow();
});

test.each([
  ["", "InvalidArgument"],
  ["a/../b", "InvalidArgument"],
  ["..", "InvalidArgument"],
  ["a/./b", "InvalidArgument"],
  ["/a", "InvalidArgument"],
  ["a//b", "InvalidArgument"],
  ["a/", "InvalidArgument"],
  ["a\0b", "InvalidArgument"],
  ["x".repeat(1025), "KeyTooLongError"],
  ["€".repeat(342), "KeyTooLongError"],
])("key %j is refused with %s", (key, code) => {
  expect(() => validateObjectKey(key)).toThrow(expect.objectContaining({ code }));
});

test("keys sort by their UTF-8 bytes, as S3 lists them", () => {
  // U+FF5E sorts before U+1F600 in UTF-8, after it in UTF-16.
  expect(["\u{1F600}", "\uFF5E", "a/b", "a-b"].sort(compareKeys)).toEqual(["a-b", "a/b", "\uFF5E", "\u{1F600}"]);
});
