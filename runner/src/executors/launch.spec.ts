import { launch } from "./launch";

const run = (script: string, signal = new AbortController().signal, killGraceMs = 200) => {
  const lines: string[] = [];
  const result = launch({ argv: [process.execPath, "-e", script], cwd: process.cwd(), env: {} }, { onLine: (line) => lines.push(line), signal, killGraceMs });
  return { lines, result };
};

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("launch", () => {
  it("streams stdout and stderr lines and reports the exit code", async () => {
    const { lines, result } = run(`console.log("one\\ntwo"); console.error("three"); process.exit(3);`);
    expect(await result).toEqual({ exitCode: 3, signal: null });
    expect(lines.sort()).toEqual(["one", "three", "two"]);
  });

  it("stops the process group on abort, with SIGKILL when SIGTERM is ignored", async () => {
    const stop = new AbortController();
    const script = `const c = require("node:child_process").spawn("sleep", ["60"], { stdio: "ignore" });
      process.on("SIGTERM", () => undefined); console.log(c.pid); setInterval(() => undefined, 1000);`;
    const { lines, result } = run(script, stop.signal);
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    expect(await result).toEqual({ exitCode: null, signal: "SIGKILL" });
    expect(isAlive(Number(lines[0]))).toBe(false);
  });

  it("rejects when the program cannot start", async () => {
    const result = launch({ argv: ["hangar-no-such-program"], cwd: process.cwd(), env: {} }, { onLine: () => undefined, signal: new AbortController().signal, killGraceMs: 10 });
    await expect(result).rejects.toMatchObject({ code: "ENOENT" });
  });
});
