/** How long upload and download credentials and presigned URLs live (the wire needs at least 15 minutes). */
export const CREDENTIALS_TTL_SECONDS = 3600;
