import type { JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue, type UnitOfWork } from "@hangar/shared";
import { NOTIFICATION_CHANNELS, type NotificationChannel } from "./notifications";

/** The user configuration key of a user's notification settings: the channels its notifications go on. */
export const NOTIFICATION_CHANNELS_KEY = "notification_channels";

/** Users' configuration values by key (get_user_config, set_user_config). */
export interface UserConfigRepository {
  /** The value, or undefined when the key is unset. */
  get(userId: string, key: string): Promise<JsonValue | undefined>;
  set(userId: string, key: string, value: JsonValue): Promise<void>;
}

/** What the user configuration use cases reach. */
export type UserConfigUnitOfWork = UnitOfWork<{ userConfig: UserConfigRepository }>;

/** The caller's value of a key; null when unset. */
export async function getUserConfig(uow: UserConfigUnitOfWork, userId: string, key: string): Promise<JsonValue> {
  return (await uow.repositories().userConfig.get(userId, checkKey(key))) ?? null;
}

/**
 * Sets the caller's value of a key (any JSON; its size limit is the request's). The value of
 * `notification_channels` must be a list of distinct channels (400 naming `value` otherwise).
 */
export async function setUserConfig(uow: UserConfigUnitOfWork, userId: string, key: string, value: JsonValue): Promise<void> {
  if (checkKey(key) === NOTIFICATION_CHANNELS_KEY) checkChannels(value);
  await uow.repositories().userConfig.set(userId, key, value);
}

/** The channels a user chose for its notifications, or null when it chose none. */
export async function chosenChannels(configs: UserConfigRepository, userId: string): Promise<NotificationChannel[] | null> {
  const value = await configs.get(userId, NOTIFICATION_CHANNELS_KEY);
  return value === undefined ? null : checkChannels(value);
}

function checkKey(key: string): string {
  if (key.trim() === "") throw invalidArgument("key", "must not be empty");
  return key;
}

function checkChannels(value: JsonValue): NotificationChannel[] {
  const known = NOTIFICATION_CHANNELS as readonly string[];
  if (!Array.isArray(value) || !value.every((c): c is string => typeof c === "string" && known.includes(c)) || new Set(value).size !== value.length) {
    throw invalidArgument("value", `${NOTIFICATION_CHANNELS_KEY} must be a list of distinct channels (${NOTIFICATION_CHANNELS.join(", ")}), got ${quoteValue(JSON.stringify(value))}`);
  }
  return value as NotificationChannel[];
}
