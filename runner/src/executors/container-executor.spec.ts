import { mkdir, mkdtemp, rm, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Workspace } from "../workspace";
import { containerExecutor, detectContainerCli } from "./container-executor";
import type { ActionSpec } from "./executor";

const workspace = { root: "/work/iv_1" } as Workspace;

function spec(overrides: Partial<ActionSpec> = {}): ActionSpec {
  return {
    invocationId: "iv_1",
    entryPoint: [],
    command: ["python", "main.py"],
    image: "registry.example.com/detector:1",
    env: { ROBOTO_API_KEY: "hgi_secret", ROBOTO_INPUT_DIR: "/work/iv_1/input" },
    workspace,
    ...overrides,
  };
}

describe("containerExecutor", () => {
  const executor = containerExecutor({ cli: "podman", network: "host", user: "1000:1000", hostEnv: { PATH: "/usr/bin", HOME: "/home/runner", AWS_SECRET_ACCESS_KEY: "x" } });

  it("runs the image with the workspace mounted at its own path and the variables passed by name", () => {
    expect(executor.plan(spec())).toEqual({
      argv: [
        "podman", "run", "--rm", "--name", "hangar-iv_1", "--network", "host", "--user", "1000:1000",
        "--volume", "/work/iv_1:/work/iv_1",
        "--env", "ROBOTO_API_KEY", "--env", "ROBOTO_INPUT_DIR",
        "registry.example.com/detector:1", "python", "main.py",
      ],
      cwd: "/work/iv_1",
      env: { PATH: "/usr/bin", HOME: "/home/runner", ROBOTO_API_KEY: "hgi_secret", ROBOTO_INPUT_DIR: "/work/iv_1/input" },
      cleanup: ["podman", "rm", "--force", "hangar-iv_1"],
    });
  });

  it("puts the entry point's program in --entrypoint and its arguments before the command, and sets the workdir", () => {
    const { argv } = executor.plan(spec({ entryPoint: ["/bin/sh", "-c"], command: ["echo hi"], workdir: "/app" }));
    expect(argv.slice(argv.indexOf("--workdir"))).toEqual([
      "--workdir", "/app",
      "--env", "ROBOTO_API_KEY", "--env", "ROBOTO_INPUT_DIR",
      "--entrypoint", "/bin/sh",
      "registry.example.com/detector:1", "-c", "echo hi",
    ]);
  });

  it("runs the image's own command when the invocation gives none", () => {
    expect(executor.plan(spec({ command: [] })).argv.at(-1)).toBe("registry.example.com/detector:1");
  });

  it("refuses an action without an image", () => {
    expect(() => executor.plan(spec({ image: undefined }))).toThrow("no image to run: the action has no uri");
  });
});

describe("detectContainerCli", () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(path.join(tmpdir(), "cli-"))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function executable(name: string): Promise<string> {
    const sub = path.join(dir, name);
    await mkdir(sub);
    await writeFile(path.join(sub, name), "#!/bin/sh\n");
    await chmod(path.join(sub, name), 0o755);
    return sub;
  }

  it("prefers docker, then podman, found on PATH", async () => {
    const podman = await executable("podman");
    const docker = await executable("docker");
    expect(await detectContainerCli([podman, docker].join(path.delimiter))).toBe("docker");
    expect(await detectContainerCli(podman)).toBe("podman");
  });

  it("finds nothing when neither is there", async () => {
    expect(await detectContainerCli(dir)).toBeUndefined();
  });
});
