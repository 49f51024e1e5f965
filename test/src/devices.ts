import type { ApiClient } from "./http";

/** Creates a device (`body` is the create_device body) and returns its record. */
export async function createDevice(client: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await client.post("/v1/devices/create", body);
  if (res.status !== 200) throw new Error(`create device failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Creates a device type (`body` is the create_device_type body) and returns its record. */
export async function createDeviceType(client: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await client.post("/v1/device-types/create", body);
  if (res.status !== 200) throw new Error(`create device type failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}
