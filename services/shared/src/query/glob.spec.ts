import { globToRegex, matchesAnyGlob } from "./glob";

describe("gitignore-style patterns", () => {
  test.each<[string, string, boolean]>([
    ["*.csv", "a.csv", true],
    ["*.csv", "logs/deep/a.csv", true],
    ["*.csv", "a.csv.bak", false],
    ["logs/*.txt", "logs/a.txt", true],
    ["logs/*.txt", "x/logs/a.txt", false],
    ["logs/*.txt", "logs/sub/a.txt", false],
    ["logs/**/*.txt", "logs/sub/deep/a.txt", true],
    ["raw/", "raw/a/b.bin", true],
    ["/top.md", "top.md", true],
    ["/top.md", "sub/top.md", false],
    ["file?.bin", "file1.bin", true],
    ["a+b(1).txt", "a+b(1).txt", true],
  ])("%s against %s: %s", (pattern, path, expected) => {
    expect(matchesAnyGlob([pattern], path)).toBe(expected);
  });

  test("any of several patterns", () => {
    expect(matchesAnyGlob(["*.csv", "*.bag"], "x/y.bag")).toBe(true);
    expect(matchesAnyGlob([], "x/y.bag")).toBe(false);
  });

  test("empty and negated patterns are refused naming the field", () => {
    expect(() => globToRegex(" ", "include_patterns[0]")).toThrow("include_patterns[0]: must not be empty");
    expect(() => globToRegex("!*.csv", "required_inputs[1]")).toThrow("required_inputs[1]: negated patterns (!) are not supported");
  });

  test("at most 1,000 characters", () => {
    expect(() => globToRegex("p".repeat(1000), "required_inputs[0]")).not.toThrow();
    expect(() => globToRegex("p".repeat(1001), "required_inputs[0]")).toThrow("required_inputs[0]: at most 1000 characters");
  });

  test("at most 16 wildcards, a ** counting as one", () => {
    expect(() => globToRegex("a/**/".repeat(15) + "*.txt", "include_patterns[0]")).not.toThrow();
    expect(() => globToRegex("*".repeat(16 * 2), "include_patterns[0]")).not.toThrow();
    expect(() => globToRegex("*a".repeat(17), "exclude_patterns[2]")).toThrow("exclude_patterns[2]: at most 16 wildcards (*, ** or ?)");
    expect(() => globToRegex("?".repeat(17), "required_inputs[0]")).toThrow("required_inputs[0]: at most 16 wildcards (*, ** or ?)");
  });
});
