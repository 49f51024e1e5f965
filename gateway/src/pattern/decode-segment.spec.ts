import { ConnectError, Code } from "@connectrpc/connect";
import { decodePlusSegment, decodeSegment } from "./decode-segment";

describe("decodeSegment", () => {
  const cases: [string, string][] = [
    ["plain", "plain"],
    ["dir%2Fa.txt", "dir/a.txt"],
    ["file%3Afl_abc", "file:fl_abc"],
    ["a+b", "a+b"],
    ["%2541", "%41"],
    ["caf%C3%A9", "café"],
  ];
  it.each(cases)("decodes %s once", (raw, decoded) => {
    expect(decodeSegment(raw)).toBe(decoded);
  });

  it.each(["%", "%4", "%zz", "%C3"])("rejects %s with a 400", (raw) => {
    let error: unknown;
    try {
      decodeSegment(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).rawMessage).toBe(`invalid percent-encoding in path segment '${raw}'`);
  });
});

describe("decodePlusSegment", () => {
  const cases: [string, string][] = [
    ["my+topic", "my topic"],
    ["a%2Bb", "a+b"],
    ["file%3Afl_abc+x", "file:fl_abc x"],
    ["plain", "plain"],
  ];
  it.each(cases)("decodes %s", (raw, decoded) => {
    expect(decodePlusSegment(raw)).toBe(decoded);
  });
});
