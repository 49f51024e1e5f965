import { validateS3ObjectStoreOptions } from "./s3-object-store-options";

describe("validateS3ObjectStoreOptions", () => {
  test("accepts a bucket and region alone (AWS endpoints, default credential chain)", () => {
    expect(() => validateS3ObjectStoreOptions({ bucket: "hangar-data", region: "eu-west-1" })).not.toThrow();
  });

  test("accepts a custom endpoint with static keys and a role", () => {
    const options = {
      bucket: "hangar.data-1",
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9000",
      stsEndpoint: "https://sts.example.test",
      accessKeyId: "AKIA",
      secretAccessKey: "secret",
      sessionToken: "token",
      roleArn: "arn:aws:iam::123456789012:role/hangar-uploads",
    };
    expect(() => validateS3ObjectStoreOptions(options)).not.toThrow();
  });

  test("reports every problem at once", () => {
    const options = {
      bucket: "Hangar_Data",
      region: "",
      endpoint: "127.0.0.1:9000",
      stsEndpoint: "ftp://sts",
      accessKeyId: "AKIA",
      roleArn: "hangar-uploads",
    };
    expect(() => validateS3ObjectStoreOptions(options)).toThrow(
      "invalid S3 object store options:\n" +
        "  bucket 'Hangar_Data' is not a valid S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')\n" +
        "  region must be set\n" +
        "  endpoint '127.0.0.1:9000' is not an http(s) URL\n" +
        "  stsEndpoint 'ftp://sts' is not an http(s) URL\n" +
        "  accessKeyId and secretAccessKey must be given together\n" +
        "  roleArn 'hangar-uploads' is not an ARN",
    );
  });

  test("refuses a session token without keys", () => {
    expect(() => validateS3ObjectStoreOptions({ bucket: "hangar-data", region: "us-east-1", sessionToken: "t" })).toThrow(
      "sessionToken needs accessKeyId and secretAccessKey",
    );
  });
});
