import type { SlackSender } from "./domain/fire-triggers";

/** How a Slack post is attempted: per-attempt timeout and attempts in all (defaults 5 s and 3). */
export interface SlackPostSettings {
  timeoutMs: number;
  attempts: number;
}

/**
 * Slack targets as incoming webhooks: each channel id the deployment configures maps to its webhook
 * URL. A post is a JSON `{text, channel}` POST with a timeout; a connection that failed, a 429 or a
 * 5xx is retried (after 250 ms, then doubling) up to `attempts`, any other non-2xx fails at once. A
 * timeout is not retried: the post may have arrived, and a retry would repeat the message (the
 * benchmark under load saw hundreds of repeats when it was).
 */
export function slackWebhooks(urls: Readonly<Record<string, string>>, settings: Partial<SlackPostSettings> = {}): SlackSender {
  const { timeoutMs, attempts } = { timeoutMs: 5000, attempts: 3, ...settings };
  return {
    knows: (channelId) => Object.hasOwn(urls, channelId),
    async post(channelId, text) {
      const url = urls[channelId];
      if (url === undefined) throw new Error(`no Slack webhook is configured for channel '${channelId}'`);
      for (let attempt = 1; ; attempt++) {
        const outcome = await postOnce(url, { text, channel: channelId }, timeoutMs);
        if (outcome === "ok") return;
        if (outcome !== "retry" || attempt >= attempts) throw new Error(`Slack webhook for channel '${channelId}' failed: ${outcome === "retry" ? "no success" : outcome} after ${attempt} attempt(s)`);
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (attempt - 1)));
      }
    },
  };
}

async function postOnce(url: string, body: object, timeoutMs: number): Promise<"ok" | "retry" | string> {
  try {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    if (response.ok) return "ok";
    return response.status === 429 || response.status >= 500 ? "retry" : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms (the message may have arrived)` : "retry";
  }
}
