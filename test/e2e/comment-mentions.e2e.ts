import type { Admin } from "kafkajs";
import { Client } from "pg";
import { adminService } from "@hangar/admin";
import { applyOnce, createLogger, relayBatch, TOPICS, type ConsumerDefinition, type EventMessage } from "@hangar/shared";
import {
  addMember,
  consumerCaughtUp,
  createDataset,
  kafkaAdmin,
  messagesOnTopic,
  receivedEmails,
  startWithTenants,
  waitFor,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The comment-mention path end to end through the real Kafka broker: the data service writes the
// event to its outbox with the comment, the relay publishes it, the admin service's consumer
// notifies each mentioned user once, also when the event arrives again (a redelivery, a lost
// processed-event record) and when a consumer crashes before committing; the email goes out once.
// And from the public Python SDK: a Comment with a mention yields a notification the mentioned user lists.
// The other way round, the compute service's deletion event takes a deleted action's comments
// through the broker to the data service.

const CONSUMER = "admin.comment-mentions";
let t: TestPlatform;
let alice: TestTenant;
let admin: Admin;
let db: Client;
let datasetId: string;
let ws: SdkWorkspace;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["mentions"], { kafka: true });
  admin = await kafkaAdmin();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  datasetId = await createDataset(alice.client, "mentioned");
  ws = await sdkWorkspace(t, "newest");
});
afterAll(async () => {
  await ws?.close();
  await db?.end();
  await admin?.disconnect();
  await t?.close();
});

const topic = () => `${t.namespace}.${TOPICS.commentMention}`;
const caughtUp = () => consumerCaughtUp(admin, `${t.namespace}.${CONSUMER}`, topic());

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

async function mention(user: TestTenant, text = "look"): Promise<any> {
  return ok(await alice.client.post("/v1/comments", { entity_type: "dataset", entity_id: datasetId, comment_text: `${text} @[Them](${user.userId})` }));
}

async function notificationsOf(user: TestTenant): Promise<any[]> {
  return ok(await user.client.get("/v1/notifications")).items;
}

/** Waits until the user's one notification's email went out, and returns the notification. */
function emailed(user: TestTenant): Promise<any> {
  return waitFor(`the email to ${user.userId}`, async () => {
    const items = await notificationsOf(user);
    return items.length === 1 && items[0].lifecycle_status.email === "Send" ? items[0] : undefined;
  });
}

test("a mention reaches the admin service through Kafka and notifies the mentioned user once, by email too", async () => {
  const carol = await addMember(t, alice, "carol");
  await mention(carol);
  const notification = await emailed(carol);
  await caughtUp();
  expect(await notificationsOf(carol)).toEqual([notification]);
  expect(await receivedEmails(carol.userId)).toHaveLength(1);
});

test("a redelivery of every mention event, even after the consumer lost its records of them, notifies nobody again", async () => {
  const dave = await addMember(t, alice, "dave");
  await mention(dave);
  const notification = await emailed(dave);
  await caughtUp();
  const published = await messagesOnTopic(admin, topic());
  // The data service publishes every mention event again (same event ids), as after a relay crash.
  await db.query("update data.outbox set published = null where topic = $1", [TOPICS.commentMention]);
  t.platform.services.data.relay.wake();
  await waitFor("the duplicates", async () => ((await messagesOnTopic(admin, topic())) === published * 2 ? true : undefined));
  await caughtUp();
  // Again without the processed-event records: the notifications' own (event, user) key holds.
  await db.query("delete from admin.processed_events where consumer = $1", [CONSUMER]);
  await db.query("update data.outbox set published = null where topic = $1", [TOPICS.commentMention]);
  t.platform.services.data.relay.wake();
  await waitFor("the second duplicates", async () => ((await messagesOnTopic(admin, topic())) === published * 3 ? true : undefined));
  await caughtUp();
  expect(await notificationsOf(dave)).toEqual([notification]);
  expect(await receivedEmails(dave.userId)).toHaveLength(1);
});

test("a poison mention event is dead-lettered after bounded retries, and later mentions still notify", async () => {
  await t.transport.publish([{ eventId: "poison-mention", topic: TOPICS.commentMention, key: "x", payload: Uint8Array.from([0xff, 0xff, 0xff]), headers: {} }]);
  const dead = await waitFor("the dead letter", async () => (await db.query("select consumer, topic from admin.dead_letters where event_id = 'poison-mention'")).rows[0]);
  expect(dead).toEqual({ consumer: CONSUMER, topic: TOPICS.commentMention });
  const erin = await addMember(t, alice, "erin");
  await mention(erin);
  await emailed(erin);
});

test("the public SDK: a Comment with a mention yields a notification the mentioned user lists", async () => {
  const frank = await addMember(t, alice, "frank");
  const created = await ws.sdk(
    "comment",
    `import json, sys
from roboto.domain.comments import Comment, CommentEntityType
args = json.loads(sys.argv[1])
comment = Comment.create(comment_text=args["text"], entity_id=args["dataset_id"], entity_type=CommentEntityType.Dataset)
print(json.dumps({"comment_id": comment.comment_id, "mentions": comment.record.mentions}))`,
    { text: `Have a look @[Frank F](${frank.userId})`, dataset_id: datasetId },
    alice.token,
  );
  expect(created).toEqual({ comment_id: expect.stringMatching(/^cm_/), mentions: [frank.userId] });
  const listed = await waitFor("frank's notification, as the SDK lists it", async () => {
    const page = await ws.sdk(
      "notifications",
      `import json
from roboto import RobotoClient
from roboto.notifications import NotificationRecord, NotificationsClient
page = NotificationsClient(RobotoClient.from_env().http_client).get_notifications()
print(json.dumps([NotificationRecord.model_validate(item).model_dump(mode="json") for item in page["items"]]))`,
      {},
      frank.token,
    );
    return page.length > 0 ? page : undefined;
  });
  expect(listed).toEqual([
    expect.objectContaining({ user_id: frank.userId, notifier_id: alice.userId, notification_type: "comment_mention", read_status: "unread", channels: ["email", "web_ui"] }),
  ]);
});

test("a consumer crash before its commit leaves no trace; the redelivered event then notifies once", async () => {
  const gina = await addMember(t, alice, "gina");
  await t.platform.services.data.relay.stop();
  await mention(gina);
  const row = (await db.query("select event_id, topic, key, payload, headers from data.outbox where published is null and topic = $1", [TOPICS.commentMention])).rows[0];
  const message: EventMessage = { eventId: row.event_id, topic: row.topic, key: row.key, payload: row.payload, headers: row.headers };
  // The admin service's own handler, run as its consumer runs it, dying after the effect and before the commit.
  const { handler, close } = mentionHandler();
  const crashing = async (...args: Parameters<ConsumerDefinition["handler"]>) => {
    await handler(...args);
    throw new Error("consumer crashed before committing");
  };
  await expect(applyOnce({ name: CONSUMER, orm: t.platform.services.admin.orm, handler: crashing }, message)).rejects.toThrow("consumer crashed");
  await close();
  expect(await notificationsOf(gina)).toEqual([]);
  expect(await relayBatch({ orm: t.platform.services.data.orm, transport: t.transport })).toBe(1);
  await emailed(gina);
  await caughtUp();
  expect(await notificationsOf(gina)).toHaveLength(1);
  expect(await receivedEmails(gina.userId)).toHaveLength(1);
});

test("a deleted action's comments leave through Kafka: the compute service's deletion event reaches the data service once", async () => {
  const name = "deleted-over-kafka";
  ok(await alice.client.post("/v1/actions", { name, uri: "registry.example.com/a:1" }));
  const created = ok(await alice.client.post("/v1/comments", { entity_type: "action", entity_id: name, comment_text: "soon gone" }));
  expect(ok(await alice.client.get("/v1/comments/type/action")).items.map((c: any) => c.comment_id)).toEqual([created.comment_id]);
  ok(await alice.client.delete(`/v1/actions/${name}`));
  await waitFor("the comment to leave the listings", async () => (ok(await alice.client.get("/v1/comments/type/action")).total_count === 0 ? true : undefined));
  const deletions = `${t.namespace}.${TOPICS.computeEntityDeleted}`;
  expect(await messagesOnTopic(admin, deletions)).toBe(1);
  await consumerCaughtUp(admin, `${t.namespace}.data.compute-deletions`, deletions);
  const handled = await db.query("select event_id from data.processed_events where consumer = 'data.compute-deletions'");
  expect(handled.rows).toEqual([{ event_id: (await db.query("select event_id from compute.outbox where topic = $1", [TOPICS.computeEntityDeleted])).rows[0].event_id }]);
});

/** The admin service's comment-mention handler, bound to this platform's services, and how to let go of its connections. */
function mentionHandler(): { handler: ConsumerDefinition["handler"]; close: () => Promise<void> } {
  const runtime = {
    databaseUrl: t.databaseUrl,
    internalAuthSecret: t.internalAuthSecret,
    transport: t.transport,
    logger: createLogger("test", "silent"),
    port: 0,
    locate: (name: keyof typeof t.platform.services) => ({ url: t.platform.services[name].url }),
  };
  const definition = adminService();
  const consumers = definition.consumers!({ orm: t.platform.services.admin.orm, runtime, eventsWritten: () => {} });
  return { handler: consumers.find((c) => c.name === CONSUMER)!.handler, close: async () => definition.onStop?.() };
}
