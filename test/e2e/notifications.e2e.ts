import { Client } from "pg";
import {
  addMember,
  createDataset,
  expectBadRequest,
  expectError,
  receivedEmails,
  startWithTenants,
  waitFor,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Notifications (routes.md rows 205-209) through the gateway, made by mentions in comments (in the
// embedded default's in-process event delivery): who is notified (mentioned users who can see the
// entity, not the author, on the channels they chose, once per mention even across edits), the
// email each gets through a real SMTP server, and the recipient-only operations.

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant; // another org
let db: Client;
let datasetId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  datasetId = await createDataset(alice.client, "discussed");
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

const mention = (user: TestTenant, name = "Someone") => `@[${name}](${user.userId})`;

async function comment(client: ApiClient, text: string): Promise<any> {
  return ok(await client.post("/v1/comments", { entity_type: "dataset", entity_id: datasetId, comment_text: text }));
}

async function notificationsOf(user: TestTenant, query = ""): Promise<any[]> {
  return ok(await user.client.get(`/v1/notifications${query}`)).items;
}

/** Waits until the user has `count` notifications and returns them, newest first. */
function notified(user: TestTenant, count: number): Promise<any[]> {
  return waitFor(`${count} notifications of ${user.userId}`, async () => {
    const items = await notificationsOf(user);
    return items.length === count ? items : undefined;
  });
}

test("a mention notifies the mentioned member with a comment_mention notification on email and web UI, and emails it", async () => {
  const carol = await addMember(t, alice, "carol");
  const text = `Please check the lidar, ${mention(carol, "Carol C")}`;
  await comment(alice.client, text);
  const [notification] = await notified(carol, 1);
  expect(notification).toEqual({
    notification_id: expect.stringMatching(/^nt_/),
    org_id: alice.orgId,
    user_id: carol.userId,
    notifier_id: alice.userId,
    notification_type: "comment_mention",
    channels: ["email", "web_ui"],
    lifecycle_status: { email: expect.stringMatching(/^(Initiated|Send)$/) },
    read_status: "unread",
    created: ISO,
    modified: ISO,
  });
  const sent = await waitFor("the email to be sent", async () => {
    const got = ok(await carol.client.get(`/v1/notifications/${notification.notification_id}`));
    return got.lifecycle_status.email === "Send" ? got : undefined;
  });
  expect(sent).toEqual({ ...notification, lifecycle_status: { email: "Send" }, modified: ISO });
  const emails = await receivedEmails(carol.userId);
  expect(emails).toEqual([
    {
      mail_from: "hangar-test@example.com",
      rcpt_tos: [carol.userId],
      from: "hangar-test@example.com",
      to: carol.userId,
      subject: `${alice.userId} mentioned you in a comment on dataset ${datasetId}`,
      text: expect.stringContaining(text),
    },
  ]);
  expect(emails[0]!.text).toContain(notification.notification_id);
});

test("the author, users without access to the entity and unknown users are not notified; nothing leaks to them", async () => {
  const dave = await addMember(t, alice, "dave");
  await comment(alice.client, `${mention(alice)} ${mention(bob)} @[Nobody](nobody@example.com) ${mention(dave)}`);
  // One event notifies all its users in one transaction: once dave has his, the others are settled.
  await notified(dave, 1);
  expect(await notificationsOf(alice)).toEqual([]);
  expect(await notificationsOf(bob)).toEqual([]);
  const rows = await db.query("select user_id from admin.notifications where user_id = any($1)", [[alice.userId, bob.userId, "nobody@example.com"]]);
  expect(rows.rows).toEqual([]);
  expect(await receivedEmails(bob.userId)).toEqual([]);
});

test("an edit notifies only the users it newly mentions", async () => {
  const erin = await addMember(t, alice, "erin");
  const frank = await addMember(t, alice, "frank");
  const created = await comment(alice.client, `first ${mention(erin)}`);
  await notified(erin, 1);
  ok(await alice.client.put(`/v1/comments/${created.comment_id}`, { comment_text: `second ${mention(erin)} ${mention(frank)}` }));
  // Erin's second notification would come from the same event as Frank's: once his is there, hers is settled.
  await notified(frank, 1);
  expect(await notificationsOf(erin)).toHaveLength(1);
  ok(await alice.client.put(`/v1/comments/${created.comment_id}`, { comment_text: `third, no mentions` }));
  ok(await alice.client.put(`/v1/comments/${created.comment_id}`, { comment_text: `fourth ${mention(frank)}` }));
  // Frank is new against the third text, so the fourth notifies him again: edits are compared with the text they replace.
  await notified(frank, 2);
  expect(await notificationsOf(erin)).toHaveLength(1);
});

test("notifications go on the channels the user chose in its notification_channels configuration", async () => {
  const gina = await addMember(t, alice, "gina");
  const path = "/v1/users/config/notification_channels";
  expect(ok(await gina.client.get(path))).toEqual({ key: "notification_channels", value: null });
  for (const value of [["sms"], "web_ui", ["web_ui", "web_ui"], [1], {}]) expectBadRequest(await gina.client.put(path, { value }), "value");
  expectBadRequest(await gina.client.put(path, {}), "value");
  expect(ok(await gina.client.put(path, { value: ["web_ui"] }))).toBeNull();
  expect(ok(await gina.client.get(path))).toEqual({ key: "notification_channels", value: ["web_ui"] });
  // Configuration is each user's own.
  expect(ok(await alice.client.get(path))).toEqual({ key: "notification_channels", value: null });

  await comment(alice.client, mention(gina));
  const [notification] = await notified(gina, 1);
  expect(notification).toMatchObject({ channels: ["web_ui"], lifecycle_status: {} });
  const rows = await db.query("select email_pending from admin.notifications where notification_id = $1", [notification.notification_id]);
  expect(rows.rows).toEqual([{ email_pending: false }]);
  expect(await receivedEmails(gina.userId)).toEqual([]);
});

test("the recipient reads, marks, filters and deletes its notifications; nobody else sees them", async () => {
  const hank = await addMember(t, alice, "hank");
  await comment(alice.client, `one ${mention(hank)}`);
  await comment(alice.client, `two ${mention(hank)}`);
  // Each email's delivery moves its notification's email status on its own time: wait until both
  // are delivered, so that the edits below are compared with a settled record.
  const [newer, older] = await waitFor(`hank's 2 notifications, emailed`, async () => {
    const items = await notificationsOf(hank);
    return items.length === 2 && items.every((n) => n.lifecycle_status.email === "Send") ? items : undefined;
  });
  const path = `/v1/notifications/${older.notification_id}`;

  const read = ok(await hank.client.put(path, { notification_id: older.notification_id, read_status: "read" }));
  expect(read).toMatchObject({ notification_id: older.notification_id, read_status: "read", lifecycle_status: older.lifecycle_status });
  expect((await notificationsOf(hank, "?read_status=unread")).map((n) => n.notification_id)).toEqual([newer.notification_id]);
  expect((await notificationsOf(hank, "?read_status=read")).map((n) => n.notification_id)).toEqual([older.notification_id]);
  const acknowledged = ok(await hank.client.put(path, { notification_id: older.notification_id, lifecycle_status: { web_ui: "Acknowledged" } }));
  expect(acknowledged).toMatchObject({ read_status: "read", lifecycle_status: { web_ui: "Acknowledged" } });

  const first = ok(await hank.client.get("/v1/notifications?page_size=1"));
  expect({ ids: first.items.map((n: any) => n.notification_id), total: first.total_count }).toEqual({ ids: [newer.notification_id], total: 2 });
  const second = ok(await hank.client.get(`/v1/notifications?page_size=1&page_token=${encodeURIComponent(first.next_token)}`));
  expect({ ids: second.items.map((n: any) => n.notification_id), next: second.next_token }).toEqual({ ids: [older.notification_id], next: null });

  for (const other of [alice, bob]) {
    expectError(await other.client.get(path), 404, `notification '${older.notification_id}' not found`);
    expectError(await other.client.put(path, { notification_id: older.notification_id, read_status: "unread" }), 404, `notification '${older.notification_id}' not found`);
    expectError(await other.client.delete(path), 404, `notification '${older.notification_id}' not found`);
  }
  expect(await notificationsOf(bob)).toEqual([]);
  expect(ok(await hank.client.get(path)).read_status).toBe("read");

  expect(ok(await hank.client.delete(path))).toBeNull();
  expectError(await hank.client.get(path), 404, `notification '${older.notification_id}' not found`);
  expect((await notificationsOf(hank)).map((n) => n.notification_id)).toEqual([newer.notification_id]);
});

test("bad input is a 400 naming the field, and changes nothing", async () => {
  const ivy = await addMember(t, alice, "ivy");
  await comment(alice.client, mention(ivy));
  const [notification] = await notified(ivy, 1);
  const path = `/v1/notifications/${notification.notification_id}`;
  const put = (body: Record<string, unknown>) => ivy.client.put(path, { notification_id: notification.notification_id, ...body });
  expectBadRequest(await put({ read_status: "seen" }), "read_status");
  expectBadRequest(await put({ read_status: 1 }), "read_status");
  expectBadRequest(await put({ lifecycle_status: { sms: "Send" } }), "lifecycle_status");
  expectBadRequest(await put({ lifecycle_status: { email: "Delivered!" } }), "lifecycle_status.email");
  expectBadRequest(await put({ lifecycle_status: { web_ui: 3 } }), "lifecycle_status.web_ui");
  expectBadRequest(await put({ lifecycle_status: "read" }), "lifecycle_status");
  expectBadRequest(await ivy.client.get("/v1/notifications?read_status=seen"), "read_status");
  expectBadRequest(await ivy.client.put("/v1/notifications/batch", {}), "requests");
  expectBadRequest(await ivy.client.put("/v1/notifications/batch", { requests: Array.from({ length: 101 }, () => ({ notification_id: "nt_x" })) }), "requests");
  // The email task may have moved `email` on meanwhile; nothing a refused request sent is there.
  const after = ok(await ivy.client.get(path));
  expect({ read: after.read_status, channels: Object.keys(after.lifecycle_status) }).toEqual({ read: "unread", channels: ["email"] });
});

test("a batch update answers each item in its place: the notification, or the error envelope it alone would get (the `{error: {error_code, message}}` the SDK's batch elements read)", async () => {
  const jack = await addMember(t, alice, "jack");
  await comment(alice.client, `a ${mention(jack)}`);
  await comment(alice.client, `b ${mention(jack)}`);
  const [second, first] = await notified(jack, 2);
  const res = ok(
    await jack.client.put("/v1/notifications/batch", {
      requests: [
        { notification_id: first.notification_id, read_status: "read" },
        { notification_id: "nt_missing", read_status: "read" },
        { notification_id: second.notification_id, read_status: "bogus" },
        { notification_id: second.notification_id, lifecycle_status: { web_ui: "Acknowledged" } },
      ],
    }),
  );
  expect(res).toEqual({
    responses: [
      { data: expect.objectContaining({ notification_id: first.notification_id, read_status: "read" }), error: null },
      { data: null, error: { error: { error_code: 404, message: "notification 'nt_missing' not found", stack_trace: "" } } },
      { data: null, error: { error: { error_code: 400, message: expect.stringMatching(/^read_status: /), stack_trace: "" } } },
      { data: expect.objectContaining({ notification_id: second.notification_id, read_status: "unread", lifecycle_status: { web_ui: "Acknowledged" } }), error: null },
    ],
  });
  // Another user's batch touches nothing of jack's.
  const foreign = ok(await bob.client.put("/v1/notifications/batch", { requests: [{ notification_id: first.notification_id, read_status: "unread" }] }));
  expect(foreign.responses[0].error.error.error_code).toBe(404);
  expect(ok(await jack.client.get(`/v1/notifications/${first.notification_id}`)).read_status).toBe("read");
});
