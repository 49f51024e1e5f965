/**
 * Kafka topic names, one per event type, versioned with their payload message
 * (hangar.events.v1). A payload change that breaks readers gets a new topic.
 */
export const TOPICS = {
  /** hangar.events.v1.DatasetChanged, keyed by dataset id; data -> admin (usage), compute (triggers). */
  datasetChanged: "hangar.data.dataset-changed.v1",
  /** hangar.events.v1.UploadCompleted, keyed by association id; data -> compute (triggers, ingestion). */
  uploadCompleted: "hangar.data.upload-completed.v1",
  /** hangar.events.v1.FileChanged, keyed by association id; data -> compute (triggers). */
  fileChanged: "hangar.data.file-changed.v1",
  /** hangar.events.v1.CommentMention, keyed by comment id; data -> admin (notifications). */
  commentMention: "hangar.data.comment-mention.v1",
  /** hangar.events.v1.ComputeEntityDeleted, keyed by entity id; compute -> data (comments of the entity). */
  computeEntityDeleted: "hangar.compute.entity-deleted.v1",
} as const;
