// acp-next-sockets.mjs tells, on Linux, which listening sockets a process
// holds and which processes descend from it, for acp-next-editor.mjs to
// check that the proxy opens no port and no unix socket for a session
// whose MCP server goes over ACP.
//
// listening(pid) matches the socket inodes among /proc/PID/fd against the
// LISTEN entries of /proc/PID/net/{tcp,tcp6} (state 0A) and the listening
// entries of /proc/PID/net/unix (flag __SO_ACCEPTCON, 0x10000). Elsewhere
// it returns {skipped: reason}.

import fs from "node:fs";

// listening returns {fds, sockets, listening: [{proto, local, inode}]} of
// the process pid, or {skipped} where /proc does not tell.
export function listening(pid) {
  if (process.platform !== "linux") return { skipped: `no /proc/PID/fd and /proc/net on ${process.platform}` };
  const fdDir = `/proc/${pid}/fd`;
  const inodes = new Set();
  let fds = 0;
  for (const fd of fs.readdirSync(fdDir)) {
    let target;
    try {
      target = fs.readlinkSync(`${fdDir}/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    fds++;
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]);
  }
  const found = [];
  for (const proto of ["tcp", "tcp6"]) {
    for (const row of table(`/proc/${pid}/net/${proto}`)) {
      // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
      if (row[3] === "0A" && inodes.has(row[9])) found.push({ proto, local: address(row[1]), inode: row[9] });
    }
  }
  for (const row of table(`/proc/${pid}/net/unix`)) {
    // Num RefCount Protocol Flags Type St Inode [Path]
    if ((parseInt(row[3], 16) & 0x10000) !== 0 && inodes.has(row[6])) {
      found.push({ proto: "unix", local: row[7] ?? "(unnamed)", inode: row[6] });
    }
  }
  return { fds, sockets: inodes.size, listening: found };
}

// descendants returns the processes below pid: [{pid, ppid, cmdline}].
export function descendants(pid) {
  if (process.platform !== "linux") return [];
  const parent = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid ...; comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [p, pp] of parent) {
      if (!below.has(p) && below.has(pp)) {
        below.add(p);
        grew = true;
      }
    }
  }
  below.delete(pid);
  return [...below].map((p) => {
    let cmdline = "";
    try {
      cmdline = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    } catch {
      // gone meanwhile
    }
    return { pid: p, ppid: parent.get(p), cmdline };
  });
}

function table(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return []; // no IPv6, say
  }
  return text
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((l) => l.trim().split(/\s+/));
}

// address renders a /proc/net/tcp address: IPv4 as a.b.c.d:port, IPv6 in
// its hex form.
function address(hex) {
  const [ip, port] = hex.split(":");
  if (ip.length !== 8) return `[${ip}]:${parseInt(port, 16)}`;
  const bytes = ip.match(/../g).map((b) => parseInt(b, 16)).reverse();
  return `${bytes.join(".")}:${parseInt(port, 16)}`;
}
