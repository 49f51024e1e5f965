import { canonicalRequest, deriveSigningKey, EMPTY_SHA256, hmacSha256, requestStringToSign } from "./sigv4";
import { presignUrl } from "./presign-url";

// The example credentials and values of the AWS S3 documentation ("Signature Calculations for the
// Authorization Header" and "Query String Authentication").
const secretAccessKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const scope = { date: "20130524", region: "us-east-1", service: "s3" };

test("the documented GET Object example (with a Range header) signs to the documented signature", () => {
  const canonical = canonicalRequest({
    method: "GET",
    canonicalUri: "/test.txt",
    query: [],
    signedHeaders: ["host", "range", "x-amz-content-sha256", "x-amz-date"],
    headerValues: new Map([
      ["host", "examplebucket.s3.amazonaws.com"],
      ["range", "bytes=0-9"],
      ["x-amz-content-sha256", EMPTY_SHA256],
      ["x-amz-date", "20130524T000000Z"],
    ]),
    payloadHash: EMPTY_SHA256,
  });
  const signature = hmacSha256(deriveSigningKey(secretAccessKey, scope), requestStringToSign("20130524T000000Z", scope, canonical));
  expect(signature.toString("hex")).toBe("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
});

test("the documented GET Bucket example (query parameters out of order) signs to the documented signature", () => {
  const canonical = canonicalRequest({
    method: "GET",
    canonicalUri: "/",
    query: [["prefix", "J"], ["max-keys", "2"]],
    signedHeaders: ["host", "x-amz-content-sha256", "x-amz-date"],
    headerValues: new Map([
      ["host", "examplebucket.s3.amazonaws.com"],
      ["x-amz-content-sha256", EMPTY_SHA256],
      ["x-amz-date", "20130524T000000Z"],
    ]),
    payloadHash: EMPTY_SHA256,
  });
  const signature = hmacSha256(deriveSigningKey(secretAccessKey, scope), requestStringToSign("20130524T000000Z", scope, canonical));
  expect(signature.toString("hex")).toBe("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
});

test("a presigned URL for the documented example carries the documented signature", () => {
  const url = presignUrl({
    method: "GET",
    endpoint: "https://examplebucket.s3.amazonaws.com",
    path: "/test.txt",
    region: "us-east-1",
    accessKeyId: "AKIAIOSFODNN7EXAMPLE",
    secretAccessKey,
    expiresInSeconds: 86_400,
    now: new Date("2013-05-24T00:00:00Z"),
  });
  expect(url).toBe(
    "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
      "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z" +
      "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
  );
});
