import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkReachableByPostgresUser, firstClosedToOthers } from "./root-access";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "root-access-"));
  await chmod(base, 0o755);
});
afterEach(() => rm(base, { recursive: true, force: true }));

test("a private directory on the way to the data directory is named, with the fix", async () => {
  const home = path.join(base, "home");
  await mkdir(path.join(home, "checkout"), { recursive: true });
  await chmod(home, 0o700);
  const dataDir = path.join(home, "checkout", ".data", "postgres");
  await expect(checkReachableByPostgresUser({ dataDir }, 0)).rejects.toThrow(`${home} is not searchable by other users`);
  await expect(checkReachableByPostgresUser({ dataDir }, 0)).rejects.toThrow(`chmod o+x ${home}`);
});

test("the server binary's directories are checked as well as the data directory's", async () => {
  const bin = path.join(base, "modules", "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(path.join(bin, "postgres"), "");
  await chmod(path.join(bin, "postgres"), 0o700);
  await expect(checkReachableByPostgresUser({ dataDir: path.join(base, "data"), binary: path.join(bin, "postgres") }, 0)).rejects.toThrow(
    `${path.join(bin, "postgres")} is not searchable`,
  );
});

test("open paths pass, directories yet to be made pass, and nothing is checked for a non-root user", async () => {
  await mkdir(path.join(base, "open"), { recursive: true });
  expect(await firstClosedToOthers(path.join(base, "open", "not-yet", "postgres"))).toBeUndefined();
  await expect(checkReachableByPostgresUser({ dataDir: path.join(base, "open", "data") }, 0)).resolves.toBeUndefined();
  await chmod(path.join(base, "open"), 0o700);
  await expect(checkReachableByPostgresUser({ dataDir: path.join(base, "open", "data", "postgres") }, 1000)).resolves.toBeUndefined();
});
