import { arnPartition, checkScopePrefix, createSessionPolicy } from "./session-policy";

describe("createSessionPolicy", () => {
  test("ReadOnly allows reading objects under the prefix and listing only under it", () => {
    expect(createSessionPolicy("hangar-data", "org-1/ds-1/", "ReadOnly")).toEqual({
      Version: "2012-10-17",
      Statement: [
        {
          Sid: "ObjectsUnderPrefix",
          Effect: "Allow",
          Action: ["s3:GetObject"],
          Resource: "arn:aws:s3:::hangar-data/org-1/ds-1/*",
        },
        {
          Sid: "ListUnderPrefix",
          Effect: "Allow",
          Action: ["s3:ListBucket"],
          Resource: "arn:aws:s3:::hangar-data",
          Condition: { StringLike: { "s3:prefix": ["org-1/ds-1/*"] } },
        },
      ],
    });
  });

  test("ReadWrite adds single and multipart uploads under the prefix", () => {
    const policy = createSessionPolicy("hangar-data", "org-1/ds-1/tx-1/", "ReadWrite");
    expect(policy.Statement).toEqual([
      {
        Sid: "ObjectsUnderPrefix",
        Effect: "Allow",
        Action: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
        Resource: "arn:aws:s3:::hangar-data/org-1/ds-1/tx-1/*",
      },
      {
        Sid: "ListUnderPrefix",
        Effect: "Allow",
        Action: ["s3:ListBucket"],
        Resource: "arn:aws:s3:::hangar-data",
        Condition: { StringLike: { "s3:prefix": ["org-1/ds-1/tx-1/*"] } },
      },
    ]);
  });

  test("uses the given ARN partition", () => {
    const policy = createSessionPolicy("b1", "p/", "ReadOnly", "aws-cn");
    expect(policy.Statement.map((s) => s.Resource)).toEqual(["arn:aws-cn:s3:::b1/p/*", "arn:aws-cn:s3:::b1"]);
  });

  test("stays within STS's 2048-character limit for a typical upload prefix", () => {
    const prefix = "0f9a2c1e-6d7b-4c1a-9e3f-2b8d5a7c9e10/1d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6/7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/";
    expect(JSON.stringify(createSessionPolicy("hangar-data", prefix, "ReadWrite")).length).toBeLessThan(2048);
  });
});

describe("checkScopePrefix", () => {
  test.each([
    ["", "must not be empty"],
    ["/org/ds/", "must not start with '/'"],
    ["org/*/", "must not contain '*', '?' or '$'"],
    ["org/?/", "must not contain '*', '?' or '$'"],
    ["org/${aws:username}/", "must not contain '*', '?' or '$'"],
    ["org-1/ds-1/tx-1/", undefined],
  ])("%j: %s", (prefix, problem) => {
    expect(checkScopePrefix(prefix)).toBe(problem);
  });
});

describe("arnPartition", () => {
  test.each([
    ["us-east-1", "aws"],
    ["eu-central-1", "aws"],
    ["cn-north-1", "aws-cn"],
    ["us-gov-west-1", "aws-us-gov"],
  ])("%s is in %s", (region, partition) => {
    expect(arnPartition(region)).toBe(partition);
  });
});
