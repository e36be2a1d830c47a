#!/usr/bin/env node
// Runs the mcp-acpfs binary of this machine's platform package
// (@mcp-acpfs/mcp-acpfs-<os>-<cpu>, an optional dependency), passing the
// arguments, standard input, output and error, and the exit status or signal
// through. SIGINT, SIGTERM and SIGHUP are forwarded, so a launcher stopped
// by one of them stops the server too. A launcher killed outright (SIGKILL,
// or TerminateProcess on Windows) forwards nothing: the server, which
// inherits the launcher's standard streams, then runs on until the client
// closes its standard input.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

// The platforms with a package, as process.platform-process.arch.
const platforms = [
  "darwin-arm64",
  "darwin-x64",
  "freebsd-x64",
  "linux-arm64",
  "linux-x64",
  "win32-arm64",
  "win32-x64",
];

function fail(message) {
  process.stderr.write(`mcp-acpfs: ${message}\n`);
  process.exit(1);
}

// binaryPath returns the path of the binary in this platform's package.
function binaryPath() {
  const platform = `${process.platform}-${process.arch}`;
  if (!platforms.includes(platform)) {
    fail(
      `no build for ${platform}; there are builds for ${platforms.join(", ")}. ` +
        "Build it from source instead: go install github.com/mcp-acpfs/mcp-acpfs/cmd/mcp-acpfs@latest",
    );
  }
  const pkg = `@mcp-acpfs/mcp-acpfs-${platform}`;
  let dir;
  try {
    dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg}, which holds the binary for this machine, is not installed. ` +
        "npm installs it as an optional dependency of mcp-acpfs: reinstall without " +
        "--omit=optional (or --no-optional), or install it directly.",
    );
  }
  return path.join(dir, "bin", process.platform === "win32" ? "mcp-acpfs.exe" : "mcp-acpfs");
}

const binary = binaryPath();
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
const forward = (signal) => {
  // The child may have exited already; then there is no one to tell.
  try {
    child.kill(signal);
  } catch {}
};
for (const signal of forwarded) {
  process.on(signal, forward);
}

child.on("error", (err) => fail(`cannot run ${binary}: ${err.message}`));
child.on("exit", (code, signal) => {
  for (const s of forwarded) {
    process.off(s, forward);
  }
  if (signal) {
    // End the same way, so that the parent sees the signal.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
