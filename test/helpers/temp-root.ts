/**
 * Every test run's temporary folders under one folder of its own, removed when the run ends. The tests make
 * thousands (generated projects, caches, copies of specs, code caches), and left in the system's temporary folder
 * they piled up run after run. `os.tmpdir()` reads `TMPDIR`, which the test processes, and the processes they
 * start (the CLI, npm, generated servers), inherit from this one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "cgm-test-run-"));
  const previous = process.env["TMPDIR"];
  process.env["TMPDIR"] = root;
  return () => {
    if (previous === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
