// The cached Python virtualenvs of the test infrastructure, each filled by an install script in
// scripts/ that writes a marker file last (scripts/lib/install-venv.sh).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "../..");

/** A virtualenv's directory: `$<variable>` or `<repo>/.cache/<name>`. */
export function venvDir(variable, name) {
  return process.env[variable] || path.join(repo, ".cache", name);
}

/**
 * Installs `what` with `scripts/<script>` (`$<variable>` naming the virtualenv) unless `marker` is
 * already in the virtualenv; throws with the script's output when it fails. Returns whether it ran.
 */
export function ensureVenv({ what, variable, name, marker, script }) {
  const venv = venvDir(variable, name);
  if (existsSync(path.join(venv, marker))) return false;
  const install = spawnSync("bash", [path.join(repo, "scripts", script)], { encoding: "utf8", env: { ...process.env, [variable]: venv } });
  if (install.error || install.status !== 0) {
    throw new Error(`installing ${what} failed (bash scripts/${script}): ${install.error?.message ?? ""}\n${install.stdout}${install.stderr}`.trimEnd());
  }
  return true;
}
