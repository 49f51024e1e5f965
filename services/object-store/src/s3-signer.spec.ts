import { presignUrl } from "./presign-url";
import { computeSignature, type SignedRequestParts } from "./s3-signer";
import { EMPTY_SHA256 } from "./sigv4";

// The example credentials and values of the AWS S3 documentation ("Signature Calculations for the
// Authorization Header" and "Query String Authentication").
const credential = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const scope = { date: "20130524", region: "us-east-1", service: "s3" };
const at = new Date("2013-05-24T00:00:00Z");
const host = "examplebucket.s3.amazonaws.com";

function signed(parts: Omit<SignedRequestParts, "signedHeaders" | "headerValues"> & { headers: Record<string, string> }) {
  const { headers, ...rest } = parts;
  return computeSignature({ ...rest, signedHeaders: Object.keys(headers).sort(), headerValues: new Map(Object.entries(headers)) }, credential, at, scope);
}

test("the documented GET Object example (with a Range header) signs to the documented signature", async () => {
  const computed = await signed({
    method: "GET",
    path: "/test.txt",
    query: [],
    headers: { host, range: "bytes=0-9", "x-amz-content-sha256": EMPTY_SHA256, "x-amz-date": "20130524T000000Z" },
    payloadHash: EMPTY_SHA256,
  });
  expect(computed.signature).toBe("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  expect(computed.canonicalRequest.split("\n").slice(0, 4)).toEqual(["GET", "/test.txt", "", "host:examplebucket.s3.amazonaws.com"]);
  expect(computed.stringToSign).toBe(
    "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972",
  );
});

test("the documented PUT Object example (a signed Date header and an encoded path) signs to the documented signature", async () => {
  const payloadHash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
  const computed = await signed({
    method: "PUT",
    path: "/test%24file.text",
    query: [],
    headers: {
      date: "Fri, 24 May 2013 00:00:00 GMT",
      host,
      "x-amz-content-sha256": payloadHash,
      "x-amz-date": "20130524T000000Z",
      "x-amz-storage-class": "REDUCED_REDUNDANCY",
    },
    payloadHash,
  });
  expect(computed.signature).toBe("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
});

test("the documented GET Bucket example (query parameters out of order) signs to the documented signature", async () => {
  const computed = await signed({
    method: "GET",
    path: "/",
    query: [["prefix", "J"], ["max-keys", "2"]],
    headers: { host, "x-amz-content-sha256": EMPTY_SHA256, "x-amz-date": "20130524T000000Z" },
    payloadHash: EMPTY_SHA256,
  });
  expect(computed.signature).toBe("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
});

test("a header the client did not sign does not enter the signature", async () => {
  const base = { method: "GET", path: "/test.txt", query: [], payloadHash: EMPTY_SHA256 } as const;
  const headers = { host, range: "bytes=0-9", "x-amz-content-sha256": EMPTY_SHA256, "x-amz-date": "20130524T000000Z" };
  const withExtra = await computeSignature(
    { ...base, signedHeaders: Object.keys(headers).sort(), headerValues: new Map([...Object.entries(headers), ["x-amz-meta-late", "added"]]) },
    credential,
    at,
    scope,
  );
  expect(withExtra.signature).toBe("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
});

test("a presigned URL for the documented example carries the documented signature", async () => {
  const url = await presignUrl({
    method: "GET",
    endpoint: "https://examplebucket.s3.amazonaws.com",
    path: "/test.txt",
    region: "us-east-1",
    credential,
    expiresInSeconds: 86_400,
    now: at,
  });
  expect(url).toBe(
    "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
      "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z" +
      "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
  );
});
