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
const HUGE_STRING_CHARS = 1 << 20;
/** Nesting of a deep JSON value: far past any sane depth limit, and past the stack of a naive recursive walker. */
const DEEP_JSON_LEVELS = 10_000;
/** Items in a huge array or object. */
const HUGE_ARRAY_ITEMS = 100_000;

type Fragment = { name: string; build: () => Buffer };

const text = (name: string, json: string): Fragment => ({ name, build: () => Buffer.from(json) });
const bytes = (name: string, ...parts: (string | number[])[]): Fragment => ({
  name,
  build: () => Buffer.concat(parts.map((p) => Buffer.from(typeof p === "string" ? new TextEncoder().encode(p) : p))),
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
const BAD_PAGE_TOKENS: readonly string[] = [
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

/** Whether a class applies to a single value of a shape; lists and maps also follow `appliesToCollection`. */
function appliesToValue(mutationClass: MutationClass, shape: FieldShape): boolean {
  const textual = shape === "string" || shape === "bytes" || shape === "text" || shape === "enum" || shape === "value";
  switch (mutationClass) {
    case "wrong-type":
      return true;
    case "out-of-range":
    case "huge-string":
      return shape !== "bool" && shape !== "object";
    case "deep-json":
    case "huge-array":
      return shape === "value";
    case "nul-byte":
    case "invalid-utf8":
    case "path-traversal":
    case "unknown-enum":
    case "bad-page-token":
      return textual;
    case "malformed-json":
      return false;
  }
}

/** Classes that apply to every list or map whatever its items, and to map keys. */
function appliesToCollection(mutationClass: MutationClass, shape: "list" | "map", item: FieldShape): boolean {
  if (mutationClass === "wrong-type" || mutationClass === "huge-array") return true;
  const keyClass = mutationClass === "huge-string" || mutationClass === "nul-byte" || mutationClass === "invalid-utf8" || mutationClass === "path-traversal";
  return (shape === "map" && keyClass) || appliesToValue(mutationClass, item);
}

type ValueClass = Exclude<MutationClass, "huge-array" | "malformed-json">;

const valueFragments: Record<ValueClass, (shape: FieldShape) => Fragment[]> = {
  "wrong-type": (shape) => {
    if (shape === "integer" || shape === "float") return [text("string", '"abc"'), text("object", "{}"), text("array", "[1]"), text("bool", "true"), text("null", "null")];
    if (shape === "bool") return [text("string", '"true"'), text("number", "1"), text("object", "{}"), text("null", "null")];
    if (shape === "object") return [text("string", '"x"'), text("number", "12"), text("array", "[]"), text("bool", "true"), text("null", "null")];
    const any = [text("number", "12"), text("object", "{}"), text("array", "[]"), text("bool", "true"), text("null", "null")];
    return shape === "value" ? [...any, text("string", '"x"')] : any;
  },
  "out-of-range": (shape) =>
    shape === "integer" || shape === "float" || shape === "value"
      ? ["-1", "18446744073709551616", "-9223372036854775809", "1e400", "-1e400", '"NaN"', '"Infinity"', "1.5", "2147483648", "0"].map((s) => text(s, s))
      : ["-1", "18446744073709551616", "1e400", "NaN", "99999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "-315576000001s"].map((s) => text(quoted(s), quoted(s))),
  "huge-string": (shape) =>
    shape === "integer" || shape === "float"
      ? [lazy("1 MiB of digits", () => hugeString("1")), lazy('"1 MiB of digits"', () => quoted(hugeString("1")))]
      : [lazy("1 MiB string", () => quoted(hugeString())), lazy("1 MiB of é", () => quoted(hugeString("é")))],
  "deep-json": () => [deepArrays, deepObjects],
  "nul-byte": (shape) => {
    const strings = [text('"a\\u0000b"', '"a\\u0000b"'), text('"\\u0000"', '"\\u0000"')];
    return shape === "value" ? [...strings, text("NUL key", '{"a\\u0000":1}')] : strings;
  },
  "invalid-utf8": () => [
    bytes("0xFF 0xFE", '"a', [0xff, 0xfe], 'b"'),
    bytes("0xC3 0x28", '"', [0xc3, 0x28], '"'),
    bytes("CESU surrogate", '"', [0xed, 0xa0, 0x80], '"'),
    text("lone surrogate escape", '"\\ud800"'),
  ],
  "path-traversal": () =>
    ["../../etc/passwd", "..%2f..%2fetc%2fpasswd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/etc/passwd", "..\\..\\windows\\win.ini", "a/../../../b"].map((s) =>
      text(quoted(s), quoted(s)),
    ),
  "bad-page-token": () => [...BAD_PAGE_TOKENS.map((s) => text(tokenName(s), quoted(s))), text("number", "12")],
  "unknown-enum": (shape) => {
    const names = ['"NOT_A_REAL_VALUE"', '""', '" "', '"None"'].map((s) => text(s, s));
    return shape === "enum" ? [...names, text("999", "999")] : names;
  },
};

/** The JSON mutations of one class for a field of a request body; empty when the class does not apply. */
export function jsonMutations(mutationClass: MutationClass, field: DescField, isPageToken: boolean): Mutation[] {
  return fieldFragments(mutationClass, field, isPageToken).map((f) => ({ mutationClass, name: f.name, json: f.build }));
}

function fieldFragments(mutationClass: MutationClass, field: DescField, isPageToken: boolean): Fragment[] {
  const shape = shapeOf(field);
  if (mutationClass === "bad-page-token" && !isPageToken) return [];
  if (shape === "list" || shape === "map") {
    const item = itemShape(field);
    if (!appliesToCollection(mutationClass, shape, item)) return [];
    if (mutationClass === "huge-array") return hugeCollections(shape, field, item);
    return shape === "list" ? listFragments(mutationClass as ValueClass, item) : mapFragments(mutationClass as ValueClass, item);
  }
  if (!appliesToValue(mutationClass, shape)) return [];
  return mutationClass === "huge-array" ? hugeCollections(shape, field, "value") : valueFragments[mutationClass as ValueClass](shape);
}

/** The shape of a list's items or a map's (or Struct's) values. */
function itemShape(field: DescField): FieldShape {
  return field.fieldKind === "list" || field.fieldKind === "map" ? elementShape(field) : "value";
}

function listFragments(mutationClass: ValueClass, item: FieldShape): Fragment[] {
  if (mutationClass === "deep-json") return [deepArrays, deepObjects];
  const items = appliesToValue(mutationClass, item) ? valueFragments[mutationClass](item).map(wrap("[", "]")) : [];
  if (mutationClass !== "wrong-type") return items;
  return [text("string", '"x"'), text("object", "{}"), text("number", "12"), text("null", "null"), ...items];
}

function mapFragments(mutationClass: ValueClass, item: FieldShape): Fragment[] {
  if (mutationClass === "deep-json") return [deepArrays, deepObjects];
  const values = appliesToValue(mutationClass, item) ? valueFragments[mutationClass](item).map(wrap('{"k":', "}")) : [];
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
  const repeated = field.fieldKind === "list";
  const applies = mutationClass === "huge-array" ? repeated : appliesToValue(mutationClass, elementShape(field));
  if (!applies || (mutationClass === "bad-page-token" && !isPageToken)) return [];
  return textFragments(mutationClass, repeated, location).map((f) => ({ mutationClass, name: f.name, text: f.build }));
}

type TextFragment = { name: string; build: () => string[] };

function textFragments(mutationClass: MutationClass, repeated: boolean, location: "path" | "query"): TextFragment[] {
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
      return BAD_PAGE_TOKENS.map((s) => ({ name: tokenName(s), build: () => [encodeURIComponent(s)] }));
    case "unknown-enum":
      return one("NOT_A_REAL_VALUE", "", "999999");
    case "huge-array":
      // Many short values rather than long ones: a query string past the HTTP header limit is the huge-string class.
      return location === "query" ? [{ name: "1000 values", build: () => new Array<string>(1000).fill("a") }] : [];
    case "deep-json":
    case "malformed-json":
      return [];
  }
}

function tokenName(token: string): string {
  return token.length > 40 ? `${token.length} chars` : JSON.stringify(token);
}
