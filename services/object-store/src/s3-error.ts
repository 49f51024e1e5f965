/** The S3 error codes this endpoint answers with, and their HTTP statuses (one table, as S3 documents them). */
const statusByCode = {
  AccessDenied: 403,
  SignatureDoesNotMatch: 403,
  InvalidAccessKeyId: 403,
  // S3 itself answers 400 for these two; 403 keeps every authentication refusal under one status.
  ExpiredToken: 403,
  InvalidToken: 403,
  RequestTimeTooSkewed: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  InvalidRequest: 400,
  InvalidArgument: 400,
  InvalidURI: 400,
  KeyTooLongError: 400,
  BadDigest: 400,
  InvalidDigest: 400,
  XAmzContentSHA256Mismatch: 400,
  IncompleteBody: 400,
  EntityTooSmall: 400,
  EntityTooLarge: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  MalformedXML: 400,
  // STS's, for AssumeRole (sts-assume-role.ts).
  MalformedPolicyDocument: 400,
  MissingParameter: 400,
  InvalidParameterValue: 400,
  InvalidAction: 400,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NoSuchBucket: 404,
  MethodNotAllowed: 405,
  PreconditionFailed: 412,
  InvalidRange: 416,
  InternalError: 500,
  NotImplemented: 501,
} as const;

/** An S3 error code known to this endpoint. */
export type S3ErrorCode = keyof typeof statusByCode;

/**
 * The one error type of the embedded store: an S3 error code, its message, and extra elements of the
 * XML error body (such as `StringToSign`). Anything else thrown while serving is answered as InternalError.
 */
export class S3Error extends Error {
  override readonly name = "S3Error";
  readonly status: number;

  constructor(
    readonly code: S3ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = statusByCode[code];
  }
}
