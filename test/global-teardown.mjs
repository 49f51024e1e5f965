export default async function globalTeardown() {
  for (const resource of globalThis.__hangarInfrastructure ?? []) await resource.stop();
}
