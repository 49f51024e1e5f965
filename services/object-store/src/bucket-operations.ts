import { checkAccess } from "./check-access";
import { validateObjectKey } from "./object-key";
import { S3Error } from "./s3-error";
import type { S3Context } from "./s3-operation";
import { sendEmpty, sendXml } from "./s3-response";
import { xmlDocument, xmlElements, xmlText, type XmlElement } from "./xml";

/** HeadBucket: the bucket exists; its region in `x-amz-bucket-region`, which clients use to pick an endpoint. */
export async function headBucket(context: S3Context): Promise<void> {
  sendEmpty(context.res, 200, { "x-amz-bucket-region": context.region });
}

/** GetBucketLocation (`GET /bucket?location`): empty for us-east-1, as S3 answers. */
export async function getBucketLocation(context: S3Context): Promise<void> {
  const region = context.region === "us-east-1" ? "" : context.region;
  sendXml(context.res, 200, `<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${region}</LocationConstraint>`);
}

/** ListBuckets (`GET /`): the one bucket of this store. */
export async function listBuckets(context: S3Context): Promise<void> {
  sendXml(
    context.res,
    200,
    xmlDocument("ListAllMyBucketsResult", [
      ["Owner", [["ID", "hangar"], ["DisplayName", "hangar"]]],
      ["Buckets", [["Bucket", [["Name", context.bucket], ["CreationDate", new Date(0).toISOString()], ["BucketRegion", context.region]]]]],
    ]),
  );
}

/** The most keys one DeleteObjects request may name, as in S3. */
const MAX_DELETE_KEYS = 1000;

/** DeleteObjects (`POST /bucket?delete`): each key is checked against the credential's scope on its own. */
export async function deleteObjects(context: S3Context): Promise<void> {
  const xml = await context.readText(2 * 1024 * 1024);
  const objects = xmlElements(xml, "Object");
  if (xmlElements(xml, "Delete").length !== 1 || objects.length > MAX_DELETE_KEYS) {
    throw new S3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.");
  }
  const quiet = xmlText(xml, "Quiet")?.trim().toLowerCase() === "true";
  const results: XmlElement[] = [];
  for (const object of objects) {
    const key = xmlText(object, "Key") ?? "";
    try {
      validateObjectKey(key);
      checkAccess(context.auth.credential, { action: "write", key });
      await context.disk.remove(key);
      if (!quiet) results.push(["Deleted", [["Key", key]]]);
    } catch (error) {
      if (!(error instanceof S3Error)) throw error;
      results.push(["Error", [["Key", key], ["Code", error.code], ["Message", error.message]]]);
    }
  }
  sendXml(context.res, 200, xmlDocument("DeleteResult", results));
}
