import { HpackDecoder, HpackError, encodeHeaders, type HeaderField } from "./hpack";
import { HUFFMAN_CODE_LENGTHS, HUFFMAN_CODES } from "./hpack-tables";

/** Bytes from the spaced hex the RFC prints. */
function hex(text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ""), "hex");
}

/** A test-side Huffman encoder (§5.2), padded with ones; checked against the RFC's own strings below. */
function huffman(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let current = 0;
  let bits = 0;
  const push = (bit: number) => {
    current = (current << 1) | bit;
    if (++bits === 8) {
      out.push(current);
      current = 0;
      bits = 0;
    }
  };
  for (const byte of bytes) {
    for (let i = HUFFMAN_CODE_LENGTHS[byte] - 1; i >= 0; i--) push((HUFFMAN_CODES[byte] >>> i) & 1);
  }
  while (bits !== 0) push(1);
  return out;
}

/** An integer (§5.1) in a `prefixBits`-bit prefix, the first octet's other bits being `flags`. */
function integer(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const out = [flags | max];
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push(0x80 | (value % 128));
  return [...out, value];
}

/** A literal field without indexing, name ":path" (static index 4), whose value is the given Huffman data. */
function huffmanPath(data: number[]): Buffer {
  return Buffer.from([0x04, ...integer(data.length, 7, 0x80), ...data]);
}

/** Literals with incremental indexing and new names (short ones), which `encodeHeaders` never produces. */
function encodeIncremental(fields: HeaderField[]): Buffer {
  const literal = (text: string) => [...integer(Buffer.byteLength(text), 7, 0), ...Buffer.from(text)];
  return Buffer.concat(fields.map(([name, value]) => Buffer.from([0x40, ...literal(name), ...literal(value)])));
}

/**
 * Asserts the decoder's dynamic table holds exactly `entries` (newest first), by decoding indexed
 * references to each and one past the end, which leaves the table as it was.
 */
function expectTable(decoder: HpackDecoder, entries: HeaderField[]) {
  const indices = entries.map((_, i) => 0x80 | (62 + i));
  expect(decoder.decode(Buffer.from(indices))).toEqual(entries);
  expect(() => decoder.decode(Buffer.from([0x80 | (62 + entries.length)]))).toThrow(HpackError);
}

describe("HpackDecoder: RFC 7541 Appendix C", () => {
  it("C.2.1 literal with indexing", () => {
    const decoder = new HpackDecoder();
    const block = hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572");
    expect(decoder.decode(block)).toEqual([["custom-key", "custom-header"]]);
    expectTable(decoder, [["custom-key", "custom-header"]]);
  });

  it("C.2.2 literal without indexing", () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex("040c 2f73 616d 706c 652f 7061 7468"))).toEqual([[":path", "/sample/path"]]);
    expectTable(decoder, []);
  });

  it("C.2.3 literal never indexed", () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))).toEqual([["password", "secret"]]);
    expectTable(decoder, []);
  });

  it("C.2.4 indexed field", () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex("82"))).toEqual([[":method", "GET"]]);
    expectTable(decoder, []);
  });

  const request1: HeaderField[] = [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]];
  const request2: HeaderField[] = [...request1, ["cache-control", "no-cache"]];
  const request3: HeaderField[] = [
    [":method", "GET"],
    [":scheme", "https"],
    [":path", "/index.html"],
    [":authority", "www.example.com"],
    ["custom-key", "custom-value"],
  ];

  /** C.3 and C.4: the same requests, so the same table after each. */
  function expectRequests(blocks: string[]) {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex(blocks[0]))).toEqual(request1);
    expectTable(decoder, [[":authority", "www.example.com"]]);
    expect(decoder.decode(hex(blocks[1]))).toEqual(request2);
    expectTable(decoder, [["cache-control", "no-cache"], [":authority", "www.example.com"]]);
    expect(decoder.decode(hex(blocks[2]))).toEqual(request3);
    expectTable(decoder, [["custom-key", "custom-value"], ["cache-control", "no-cache"], [":authority", "www.example.com"]]);
  }

  it("C.3 requests without Huffman coding", () => {
    expectRequests([
      "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
      "8286 84be 5808 6e6f 2d63 6163 6865",
      "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ]);
  });

  it("C.4 requests with Huffman coding", () => {
    expectRequests([
      "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
      "8286 84be 5886 a8eb 1064 9cbf",
      "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ]);
  });

  const date21: HeaderField = ["date", "Mon, 21 Oct 2013 20:13:21 GMT"];
  const date22: HeaderField = ["date", "Mon, 21 Oct 2013 20:13:22 GMT"];
  const location: HeaderField = ["location", "https://www.example.com"];
  const privateCache: HeaderField = ["cache-control", "private"];
  const cookie: HeaderField = ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"];

  /** C.5 and C.6: the same responses with a 256-octet table, which evicts as they arrive. */
  function expectResponses(blocks: string[]) {
    const decoder = new HpackDecoder(256);
    expect(decoder.decode(hex(blocks[0]))).toEqual([[":status", "302"], privateCache, date21, location]);
    expectTable(decoder, [location, date21, privateCache, [":status", "302"]]);
    expect(decoder.decode(hex(blocks[1]))).toEqual([[":status", "307"], privateCache, date21, location]);
    expectTable(decoder, [[":status", "307"], location, date21, privateCache]);
    expect(decoder.decode(hex(blocks[2]))).toEqual([[":status", "200"], privateCache, date22, location, ["content-encoding", "gzip"], cookie]);
    expectTable(decoder, [cookie, ["content-encoding", "gzip"], date22]);
  }

  it("C.5 responses without Huffman coding", () => {
    expectResponses([
      `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32
       3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
      "4803 3330 37c1 c0bf",
      `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970
       7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61
       6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`,
    ]);
  });

  it("C.6 responses with Huffman coding", () => {
    expectResponses([
      `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad
       1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
      "4883 640e ffc1 c0bf",
      `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2
       e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
    ]);
  });
});

describe("HpackDecoder", () => {
  it("decodes every octet from Huffman code, as UTF-8", () => {
    expect(huffman(Buffer.from("www.example.com"))).toEqual([...hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")]);
    const octets = Uint8Array.from({ length: 256 }, (_, i) => i);
    const block = huffmanPath(huffman(octets));
    expect(new HpackDecoder().decode(block)).toEqual([[":path", Buffer.from(octets).toString("utf8")]]);
  });

  it("decodes a Huffman string larger than its reusable scratch buffer, then a small one", () => {
    const decoder = new HpackDecoder();
    const value = "a".repeat(200_000);
    expect(decoder.decode(huffmanPath(huffman(Buffer.from(value))))).toEqual([[":path", value]]);
    expect(decoder.decode(huffmanPath(huffman(Buffer.from("ok"))))).toEqual([[":path", "ok"]]);
  });

  it("decodes UTF-8 strings and a Uint8Array view into a larger buffer", () => {
    const value = Buffer.from("grüße, 世界");
    const inner = Buffer.from([0x00, 0x01, 0x78, value.length, ...value]);
    const outer = new Uint8Array(inner.length + 6);
    outer.set(inner, 3);
    expect(new HpackDecoder().decode(outer.subarray(3, 3 + inner.length))).toEqual([["x", "grüße, 世界"]]);
  });

  it("sizes entries by their octets on the wire, not their decoded characters", () => {
    // 1 + 4 + 32 = 37 octets for ("a", "éé"), then 34 for ("b", "c"): 71 overflows 70.
    const utf8 = new HpackDecoder(70);
    utf8.decode(Buffer.from([0x40, 0x01, 0x61, 0x04, ...Buffer.from("éé"), 0x40, 0x01, 0x62, 0x01, 0x63]));
    expectTable(utf8, [["b", "c"]]);
    // An invalid UTF-8 octet decodes to U+FFFD (3 octets) but counts as 1: 34 + 34 fits 68.
    const invalid = new HpackDecoder(68);
    invalid.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0xff, 0x40, 0x01, 0x62, 0x01, 0x63]));
    expectTable(invalid, [["b", "c"], ["a", "\ufffd"]]);
  });

  it("sizes a name taken from the dynamic table by its octets", () => {
    // ("ü", "1") is 2 + 1 + 32 = 35 octets, and so are the two entries reusing its name (index 62):
    // 105 overflows 104 (counting "ü" as 1, they would fit).
    const decoder = new HpackDecoder(104);
    decoder.decode(Buffer.from([0x40, 0x02, ...Buffer.from("ü"), 0x01, 0x31, 0x7e, 0x01, 0x32, 0x7e, 0x01, 0x33]));
    expectTable(decoder, [["ü", "3"], ["ü", "2"]]);
  });

  it("empties the table for an entry larger than it, without adding the entry", () => {
    const decoder = new HpackDecoder(64);
    decoder.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62]));
    expectTable(decoder, [["a", "b"]]);
    decoder.decode(Buffer.from([0x40, 0x01, 0x61, 0x20, ...Buffer.alloc(32, 0x78)]));
    expectTable(decoder, []);
  });

  it("grows the table past its first few entries, also once evictions have moved its oldest end", () => {
    const fields = (prefix: string, count: number) => Array.from({ length: count }, (_, i): HeaderField => [`${prefix}${i}`, `v${i}`]);
    const fresh = new HpackDecoder();
    const many = fields("n", 40);
    fresh.decode(encodeIncremental(many));
    expectTable(fresh, [...many].reverse());
    // Entries of 36 octets in a table of 6 of them, then a larger table.
    const moved = new HpackDecoder();
    const [first, second] = [fields("a", 8), fields("b", 10)];
    moved.decode(Buffer.from([...integer(6 * 36, 5, 0x20), ...encodeIncremental(first)]));
    expectTable(moved, first.slice(2).reverse());
    moved.decode(Buffer.from([...integer(4096, 5, 0x20), ...encodeIncremental(second)]));
    expectTable(moved, [...[...second].reverse(), ...first.slice(2).reverse()]);
  });

  it("applies dynamic table size updates at the start of a block, evicting", () => {
    const decoder = new HpackDecoder();
    decoder.decode(Buffer.from([0x40, 0x01, 0x61, 0x01, 0x62, 0x40, 0x01, 0x63, 0x01, 0x64]));
    // Two updates (§4.2): down to 34 octets, which keeps only the newest entry, then up to 4096.
    expect(decoder.decode(Buffer.from([0x3f, 0x03, 0x3f, 0xe1, 0x1f, 0x82]))).toEqual([[":method", "GET"]]);
    expectTable(decoder, [["c", "d"]]);
    decoder.decode(Buffer.from([0x20]));
    expectTable(decoder, []);
  });

  it("accepts Huffman padding of 0 to 7 one-bits", () => {
    // "a" and ":" have 5- and 7-bit codes: 3, 7 and 0 bits of padding.
    for (const value of ["a", "aa:", "aaaaaaaa"]) {
      expect(new HpackDecoder().decode(huffmanPath(huffman(Buffer.from(value))))).toEqual([[":path", value]]);
    }
    expect(huffman(Buffer.from("a"))).toEqual([0x1f]);
  });

  it("accepts integers up to 2^31 - 1", () => {
    const decoder = new HpackDecoder(0x7fffffff);
    // A size update of 31 + 0x7fffffe0.
    expect(decoder.decode(Buffer.from([0x3f, 0xe0, 0xff, 0xff, 0xff, 0x07]))).toEqual([]);
  });
});

describe("HpackDecoder errors", () => {
  const cases: [string, number[], RegExp][] = [
    ["index 0", [0x80], /index 0/],
    ["an index past the tables", [0xbe], /past the tables/],
    ["a literal's name index past the tables", [0x0f, 0x2f, 0x01, 0x61], /past the tables/],
    ["an integer of 2^31", [0x3f, 0xe1, 0xff, 0xff, 0xff, 0x07], /integer overflow/],
    ["an integer beyond 32 bits", [0xff, 0xff, 0xff, 0xff, 0xff, 0x0f], /integer overflow/],
    ["an integer padded past 5 continuation octets", [0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], /integer overflow/],
    ["a truncated integer", [0xff, 0x80], /truncated integer/],
    ["a truncated string", [0x40, 0x05, 0x61], /truncated string/],
    ["a missing string", [0x40], /truncated string/],
    ["a missing value", [0x40, 0x01, 0x61], /truncated string/],
    ["Huffman padding of 8 bits", [...huffmanPath([0xff])], /padding/],
    ["Huffman padding of 11 bits", [...huffmanPath([0x1f, 0xff])], /padding/],
    ["Huffman padding with a zero bit", [...huffmanPath([0x1e])], /padding/],
    ["EOS in Huffman data", [...huffmanPath([0xff, 0xff, 0xff, 0xfc, 0x7f])], /EOS/],
    ["a table size update above the maximum", [0x3f, 0xe2, 0x1f], /exceeds 4096/],
    ["a table size update after a field", [0x82, 0x20], /after a header field/],
  ];

  it.each(cases)("rejects %s", (_, bytes, message) => {
    const decode = () => new HpackDecoder().decode(Buffer.from(bytes));
    expect(decode).toThrow(HpackError);
    expect(decode).toThrow(message);
  });
});

describe("encodeHeaders", () => {
  it("encodes a static name and value as an indexed field", () => {
    expect(encodeHeaders([[":method", "POST"]])).toEqual(Buffer.from([0x83]));
    expect(encodeHeaders([["content-type", ""]])).toEqual(Buffer.from([0x9f]));
  });

  it("encodes other fields as literals without indexing, with the first static name index", () => {
    expect(encodeHeaders([[":path", "/a"]])).toEqual(Buffer.from([0x04, 0x02, 0x2f, 0x61]));
    expect(encodeHeaders([["www-authenticate", "x"]])).toEqual(Buffer.from([0x0f, 0x2e, 0x01, 0x78]));
    expect(encodeHeaders([["te", "trailers"]])).toEqual(Buffer.from([0x00, 0x02, ...Buffer.from("te"), 0x08, ...Buffer.from("trailers")]));
  });

  it("round-trips through the decoder without touching the dynamic table", () => {
    const fields: HeaderField[] = [
      [":method", "POST"],
      [":scheme", "http"],
      [":path", "/hangar.data.v1.DataService/GetDataset"],
      [":authority", "data:50051"],
      ["content-type", "application/grpc"],
      ["te", "trailers"],
      ["grpc-timeout", "30S"],
      ["x-empty", ""],
      ["user-agent", ""],
      ["x-greeting", "grüße, 世界 🚀"],
      ["x-large", "v".repeat(20 * 1024)],
      ["x-long-utf8", "ü".repeat(50)],
    ];
    const decoder = new HpackDecoder();
    const block = encodeHeaders(fields);
    expect(decoder.decode(block)).toEqual(fields);
    expectTable(decoder, []);
    expect(encodeHeaders([])).toEqual(Buffer.alloc(0));
  });

  it("encodes a block larger than its reusable scratch buffer, then a small one", () => {
    const fields: HeaderField[] = [["x-huge", "世".repeat(100 * 1024)]];
    expect(new HpackDecoder().decode(encodeHeaders(fields))).toEqual(fields);
    expect(encodeHeaders([[":method", "POST"]])).toEqual(Buffer.from([0x83]));
  });

  it("encodes a long value's length as a multi-octet integer", () => {
    const value = "v".repeat(20 * 1024);
    // 20480 = 127 + 20353: continuation octets 0x81 0x9f 0x01.
    expect(encodeHeaders([["x", value]]).subarray(0, 7)).toEqual(Buffer.from([0x00, 0x01, 0x78, 0x7f, 0x81, 0x9f, 0x01]));
  });
});
