import { Code, ConnectError } from "@connectrpc/connect";
import { checkEntityType, MAX_MENTIONS, newlyMentioned, parseMentions } from "./comments";

describe("parseMentions", () => {
  test("extracts the user ids of @[Display Name](user_id) mentions, distinct, in order of first mention", () => {
    const text = "@[Bob B](bob@example.com) and @[Ann](ann) please look; cc @[Bob again](bob@example.com)";
    expect(parseMentions(text)).toEqual(["bob@example.com", "ann"]);
  });

  test("ignores what is not a complete mention", () => {
    expect(parseMentions("mail bob@example.com, @bob, @[](x), @[Name]() @[Name](with space) [Ann](ann) @[Ann] (ann)")).toEqual([]);
  });

  test("a mention may sit anywhere in the text, across lines", () => {
    expect(parseMentions("first line\n@[A](u1)\nthen(@[B](u2)).")).toEqual(["u1", "u2"]);
  });

  test(`more than ${MAX_MENTIONS} distinct users is a 400 naming the field`, () => {
    const text = Array.from({ length: MAX_MENTIONS + 1 }, (_, i) => `@[U${i}](user-${i})`).join(" ");
    expect(() => parseMentions(text)).toThrow(expect.objectContaining({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(/^comment_text: /) }));
    expect(parseMentions(text.replace(`@[U${MAX_MENTIONS}](user-${MAX_MENTIONS})`, "@[U0](user-0)"))).toHaveLength(MAX_MENTIONS);
  });
});

describe("newlyMentioned", () => {
  test("is the mentions the comment did not have before, without the author", () => {
    expect(newlyMentioned(["a", "b", "me", "c"], ["b"], "me")).toEqual(["a", "c"]);
    expect(newlyMentioned(["a"], ["a", "b"], "me")).toEqual([]);
  });
});

describe("checkEntityType", () => {
  test("accepts the SDK's entity types and refuses others with a 400 naming the field", () => {
    for (const type of ["action", "collection", "dataset", "file", "invocation", "trigger"]) expect(checkEntityType(type)).toBe(type);
    const error = (() => {
      try {
        checkEntityType("Dataset");
      } catch (e) {
        return e as ConnectError;
      }
      return undefined;
    })();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toBe("entity_type: must be one of action, collection, dataset, file, invocation, trigger, got 'Dataset'");
  });
});
