import { inMemoryAdmin } from "./in-memory-repositories.fixture";
import { notifyMentions, type CommentMention, type MentionAccess } from "./mention-notifications";

const mention: CommentMention = {
  eventId: "ev-1",
  orgId: "og_a",
  author: "author@example.com",
  mentionedUserIds: ["ann@example.com", "author@example.com", "outsider@example.com", "bob"],
  commentId: "cm_1",
  entityType: "dataset",
  entityId: "ds_1",
  commentText: "@[Ann](ann@example.com) look",
};

/** Ann and Bob can see the dataset; the outsider cannot. */
const access: MentionAccess = { canSee: async (userId) => userId !== "outsider@example.com" };

test("notifies each mentioned user who can see the entity, but not the author, on the channels the user chose", async () => {
  const { uow, state } = inMemoryAdmin({ userConfig: { "bob notification_channels": ["web_ui"] } });
  expect(await notifyMentions(uow.repositories(), access, mention)).toBe(2);
  const byUser = Object.fromEntries(state.notifications.map((n) => [n.userId, n]));
  expect(Object.keys(byUser).sort()).toEqual(["ann@example.com", "bob"]);
  expect(byUser["ann@example.com"]).toMatchObject({
    orgId: "og_a",
    notifierId: "author@example.com",
    notificationType: "comment_mention",
    channels: ["email", "web_ui"],
    lifecycleStatus: { email: "Initiated" },
    readStatus: "unread",
    emailPending: true,
    sourceEventId: "ev-1",
    detail: { commentId: "cm_1", entityType: "dataset", entityId: "ds_1", commentText: "@[Ann](ann@example.com) look" },
  });
  expect(byUser.bob).toMatchObject({ channels: ["web_ui"], lifecycleStatus: {}, emailPending: false });
});

test("the same event notifies nobody twice", async () => {
  const { uow, state } = inMemoryAdmin();
  await notifyMentions(uow.repositories(), access, mention);
  expect(await notifyMentions(uow.repositories(), access, mention)).toBe(0);
  expect(state.notifications).toHaveLength(2);
});

test("a user mentioned twice in one event is asked about and notified once", async () => {
  const { uow, state } = inMemoryAdmin();
  const asked: string[] = [];
  const counting: MentionAccess = { canSee: async (userId) => (asked.push(userId), true) };
  await notifyMentions(uow.repositories(), counting, { ...mention, mentionedUserIds: ["ann@example.com", "ann@example.com"] });
  expect(asked).toEqual(["ann@example.com"]);
  expect(state.notifications).toHaveLength(1);
});
