import type { DescField } from "@bufbuild/protobuf";
import { elementShape, plainValue, shapeOf, type FieldShape } from "./field-shape";

/** Every kind of bad input the fuzzer sends; each field gets each class that applies to it. */
export const MUTATION_CLASSES = [
  "wrong-type",
  "out-of-range",
  "huge-string",
  "deep-json",
  "nul-byte",
  "invalid-utf8",
  "path-traversal",
  "bad-page-token",
  "unknown-enum",
  "huge-array",
  "malformed-json",
] as const;

/** One of `MUTATION_CLASSES`. */
export type MutationClass = (typeof MUTATION_CLASSES)[number];

/**
 * One bad value: its class, a short name for reports, and its bytes, built on demand because some
 * are a MiB. A body mutation is a raw JSON fragment (it may hold bytes that are not UTF-8); a path or
 * query mutation is one or more raw, already percent-encoded values (several: a repeated parameter).
 */
export interface Mutation {
  readonly mutationClass: MutationClass;
  readonly name: string;
  readonly json?: () => Buffer;
  readonly text?: () => string[];
}

/** Size of a huge string: 1 MiB. */
export const HUGE_STRING_CHARS = 1 << 20;
/** Nesting of a deep JSON value: far past any sane depth limit, and past the stack of a naive recursive walker. */
export const DEEP_JSON_LEVELS = 10_000;
/** Items in a huge array or object. */
export const HUGE_ARRAY_ITEMS = 100_000;

type Fragment = { name: string; build: () => Buffer };

const text = (name: string, json: string): Fragment => ({ name, build: () => Buffer.from(json) });
const bytes = (name: string, ...parts: (string | number[])[]): Fragment => ({
  name,
  build: () => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)))),
});
const lazy = (name: string, json: () => string): Fragment => ({ name, build: () => Buffer.from(json()) });
const quoted = (s: string) => JSON.stringify(s);
const wrap = (open: string, close: string) => (f: Fragment): Fragment => ({
  name: `${open}${f.name}${close}`,
  build: () => Buffer.concat([Buffer.from(open), f.build(), Buffer.from(close)]),
});

const hugeString = (fill = "a") => fill.repeat(HUGE_STRING_CHARS / Buffer.byteLength(fill));
const deepArrays = lazy(`${DEEP_JSON_LEVELS} nested arrays`, () => "[".repeat(DEEP_JSON_LEVELS) + "]".repeat(DEEP_JSON_LEVELS));
const deepObjects = lazy(`${DEEP_JSON_LEVELS} nested objects`, () => '{"a":'.repeat(DEEP_JSON_LEVELS) + "1" + "}".repeat(DEEP_JSON_LEVELS));

/** Page tokens that are garbage, or well-formed base64url JSON with values a decoder must refuse. */
export const BAD_PAGE_TOKENS: readonly string[] = [
  "garbage!!",
  "None",
  "A".repeat(401),
  b64('{"o":-1,"f":"x"}'),
  b64('{"o":1e400,"f":"x"}'),
  b64('{"o":"1","f":"x"}'),
  b64('{"o":9007199254740993,"f":"x"}'),
  b64('{"o":0,"f":"AAAAAAAAAAAAAAAA"}'),
  b64("[]"),
  b64("not json"),
  b64("\u0000"),
  "eyJ",
];

function b64(s: string): string {
  return Buffer.from(s).toString("base64url");
}

const scalarFragments: Record<Exclude<MutationClass, "huge-array" | "malformed-json">, (shape: FieldShape) => Fragment[]> = {
  "wrong-type": (shape) => {
    if (shape === "integer" || shape === "float") return [text("string", '"abc"'), text("object", "{}"), text("array", "[1]"), text("bool", "true"), text("null", "null")];
    if (shape === "bool") return [text("string", '"true"'), text("number", "1"), text("object", "{}"), text("null", "null")];
    if (shape === "object") return [text("string", '"x"'), text("number", "12"), text("array", "[]"), text("bool", "true"), text("null", "null")];
    const any = [text("number", "12"), text("object", "{}"), text("array", "[]"), text("bool", "true"), text("null", "null")];
    return shape === "value" ? [...any, text("string", '"x"')] : any;
  },
  "out-of-range": (shape) =>
    isTextual(shape)
      ? ["-1", "18446744073709551616", "1e400", "NaN", "99999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "-315576000001s"].map((s) => text(quoted(s), quoted(s)))
      : ["-1", "18446744073709551616", "-9223372036854775809", "1e400", "-1e400", '"NaN"', '"Infinity"', "1.5", "2147483648", "0"].map((s) => text(s, s)),
  "huge-string": (shape) => {
    if (shape === "integer" || shape === "float") return [lazy("1 MiB of digits", () => hugeString("1")), lazy('"1 MiB of digits"', () => quoted(hugeString("1")))];
    if (shape === "object") return [lazy("1 MiB key", () => `{${quoted(hugeString())}:1}`)];
    return [lazy("1 MiB string", () => quoted(hugeString())), lazy("1 MiB of é", () => quoted(hugeString("é")))];
  },
  "deep-json": () => [deepArrays, deepObjects],
  "nul-byte": (shape) => {
    if (shape === "object") return [text("NUL key", '{"\\u0000":"x"}')];
    if (shape === "integer" || shape === "float") return [text('"1\\u0000"', '"1\\u0000"')];
    const strings = [text('"a\\u0000b"', '"a\\u0000b"'), text('"\\u0000"', '"\\u0000"')];
    return shape === "value" ? [...strings, text("NUL key", '{"a\\u0000":1}')] : strings;
  },
  "invalid-utf8": (shape) => {
    if (shape === "object") return [bytes("0xFF key", '{"', [0xff], '":1}')];
    return [
      bytes("0xFF 0xFE", '"a', [0xff, 0xfe], 'b"'),
      bytes("0xC3 0x28", '"', [0xc3, 0x28], '"'),
      bytes("CESU surrogate", '"', [0xed, 0xa0, 0x80], '"'),
      text("lone surrogate escape", '"\\ud800"'),
    ];
  },
  "path-traversal": (shape) =>
    shape === "object"
      ? [text("traversal key", '{"../../etc/passwd":1}')]
      : ["../../etc/passwd", "..%2f..%2fetc%2fpasswd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/etc/passwd", "..\\..\\windows\\win.ini", "a/../../../b"].map((s) =>
          text(quoted(s), quoted(s)),
        ),
  "bad-page-token": () => [...BAD_PAGE_TOKENS.map((s) => text(tokenName(s), quoted(s))), text("number", "12")],
  "unknown-enum": (shape) => {
    if (shape === "object") return [text("unknown field", '{"not_a_field":1}')];
    if (shape === "bool") return [text('"maybe"', '"maybe"')];
    const names = ['"NOT_A_REAL_VALUE"', '""', '" "', '"None"'].map((s) => text(s, s));
    return shape === "enum" ? [...names, text("999", "999")] : isTextual(shape) || shape === "value" ? names : [text("999999", "999999"), ...names];
  },
};

function isTextual(shape: FieldShape): boolean {
  return shape === "string" || shape === "bytes" || shape === "text" || shape === "enum";
}

/** The JSON mutations of one class for a field of a request body; empty when the class does not apply. */
export function jsonMutations(mutationClass: MutationClass, field: DescField, isPageToken: boolean): Mutation[] {
  const shape = shapeOf(field);
  const item = itemShape(field);
  let fragments: Fragment[];
  if (mutationClass === "malformed-json") fragments = [];
  else if (mutationClass === "bad-page-token") fragments = isPageToken ? scalarFragments[mutationClass](shape) : [];
  else if (mutationClass === "huge-array") fragments = item === undefined ? [] : hugeCollections(shape, field, item);
  else if (shape === "list") fragments = listFragments(mutationClass, item!);
  else if (shape === "map") fragments = mapFragments(mutationClass, item!);
  else fragments = scalarFragments[mutationClass](shape);
  return fragments.map((f) => ({ mutationClass, name: f.name, json: f.build }));
}

/** The shape of a list's items or a map's (or Struct's) values; undefined for a field that holds no collection. */
function itemShape(field: DescField): FieldShape | undefined {
  if (field.fieldKind === "list" || field.fieldKind === "map") return elementShape(field);
  const shape = shapeOf(field);
  return shape === "list" || shape === "map" || shape === "value" ? "value" : undefined;
}

function listFragments(mutationClass: Exclude<MutationClass, "huge-array" | "malformed-json">, item: FieldShape): Fragment[] {
  const items = scalarFragments[mutationClass](item).map(wrap("[", "]"));
  if (mutationClass === "deep-json") return [deepArrays, deepObjects];
  if (mutationClass !== "wrong-type") return items;
  return [text("string", '"x"'), text("object", "{}"), text("number", "12"), text("null", "null"), ...items];
}

function mapFragments(mutationClass: Exclude<MutationClass, "huge-array" | "malformed-json">, item: FieldShape): Fragment[] {
  if (mutationClass === "deep-json") return [deepArrays, deepObjects];
  const values = scalarFragments[mutationClass](item).map(wrap('{"k":', "}"));
  switch (mutationClass) {
    case "wrong-type":
      return [text("array", "[]"), text("string", '"x"'), text("number", "12"), text("null", "null"), ...values];
    case "huge-string":
      return [lazy("1 MiB key", () => `{${quoted(hugeString())}:1}`), ...values];
    case "nul-byte":
      return [text("NUL key", '{"\\u0000":1}'), ...values];
    case "invalid-utf8":
      return [bytes("0xFF key", '{"', [0xff], '":1}'), ...values];
    case "path-traversal":
      return [text("traversal key", '{"../../etc/passwd":1}'), ...values];
    default:
      return values;
  }
}

function hugeCollections(shape: FieldShape, field: DescField, item: FieldShape): Fragment[] {
  const one = JSON.stringify(item === "value" ? 1 : plainValue(item, field));
  const array = lazy(`${HUGE_ARRAY_ITEMS} items`, () => `[${new Array<string>(HUGE_ARRAY_ITEMS).fill(one).join(",")}]`);
  const object = lazy(`${HUGE_ARRAY_ITEMS} keys`, () => `{${Array.from({ length: HUGE_ARRAY_ITEMS }, (_, i) => `"k${i}":${one}`).join(",")}}`);
  if (shape === "list") return [array];
  if (shape === "map") return [object];
  return [array, object];
}

/** Whole-body mutations: bodies that are no JSON object at all, or break JSON itself. */
export function bodyMutations(mutationClass: MutationClass): Mutation[] {
  const fragments = wholeBodyFragments[mutationClass]?.() ?? [];
  return fragments.map((f) => ({ mutationClass, name: f.name, json: f.build }));
}

const wholeBodyFragments: Partial<Record<MutationClass, () => Fragment[]>> = {
  "malformed-json": () => [
    text("truncated", '{"a":'),
    text("single quotes", "{'a':1}"),
    text("trailing comma", "[1,]"),
    text("trailing garbage", '{"a":1}x'),
    text("NaN", "NaN"),
    text("leading zero", '{"a":01}'),
    bytes("raw control byte in a string", '{"a":"', [0x01], '"}'),
  ],
  "wrong-type": () => [text("array", "[]"), text("string", '"x"'), text("number", "12"), text("null", "null"), text("bool", "true")],
  "deep-json": () => [deepArrays, deepObjects],
  "invalid-utf8": () => [bytes("0xFF 0xFE prefix", [0xff, 0xfe], "{}"), bytes("0xFF key", '{"', [0xff], '":1}'), text("lone surrogate key", '{"\\ud800":1}')],
  "huge-string": () => [lazy("1 MiB key", () => `{${quoted(hugeString())}:1}`)],
  "nul-byte": () => [text("NUL key", '{"\\u0000":1}'), bytes("raw NUL", '{"a":1}', [0x00])],
  "huge-array": () => [lazy(`${HUGE_ARRAY_ITEMS} items`, () => `[${new Array<string>(HUGE_ARRAY_ITEMS).fill("1").join(",")}]`)],
};

/** Path or query parameter mutations of one class: raw (percent-encoded) text. */
export function textMutations(mutationClass: MutationClass, field: DescField, location: "path" | "query", isPageToken: boolean): Mutation[] {
  return textFragments(mutationClass, field.fieldKind === "list", location, isPageToken).map((f) => ({ mutationClass, name: f.name, text: f.build }));
}

type TextFragment = { name: string; build: () => string[] };

function textFragments(mutationClass: MutationClass, repeated: boolean, location: "path" | "query", isPageToken: boolean): TextFragment[] {
  const one = (...raw: string[]) => raw.map((r) => ({ name: r, build: () => [r] }));
  switch (mutationClass) {
    case "wrong-type": {
      const values = one("abc", "1.5", "true", "[]", "null");
      return location === "query" && !repeated ? [...values, { name: "repeated", build: () => ["1", "2"] }] : values;
    }
    case "out-of-range":
      return one("-1", "18446744073709551616", "-9223372036854775809", "1e400", "NaN", "Infinity", "1.5", "99999-12-31T23%3A59%3A59Z");
    case "huge-string":
      return [
        { name: "1 MiB", build: () => [hugeString()] },
        { name: "20000 chars", build: () => ["a".repeat(20_000)] },
      ];
    case "nul-byte":
      return one("a%00b", "%00");
    case "invalid-utf8":
      return one("%FF", "a%C3%28", "%ED%A0%80", "%", "%zz");
    case "path-traversal":
      return one("..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "%2e%2e", "..", "../../etc/passwd");
    case "bad-page-token":
      return isPageToken ? BAD_PAGE_TOKENS.map((s) => ({ name: tokenName(s), build: () => [encodeURIComponent(s)] })) : [];
    case "unknown-enum":
      return one("NOT_A_REAL_VALUE", "", "999999");
    case "huge-array":
      // Many short values rather than long ones: a query string past the HTTP header limit is the huge-string class.
      return location === "query" && repeated ? [{ name: "1000 values", build: () => new Array<string>(1000).fill("a") }] : [];
    case "deep-json":
    case "malformed-json":
      return [];
  }
}

function tokenName(token: string): string {
  return token.length > 40 ? `${token.length} chars` : JSON.stringify(token);
}
