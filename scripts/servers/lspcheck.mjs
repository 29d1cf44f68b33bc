// lspcheck.mjs starts a language server, sends initialize, and exits 0 once
// the server answers it with capabilities and then shuts down cleanly:
// scripts/setup.sh's verification that an installed server really runs
// (a --version flag says nothing about a server missing a dependency).
// The root is the current folder: run it in an empty one.
//
//   [LSPCHECK_INIT_OPTIONS=<json>] node lspcheck.mjs <command> [args...]
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";

const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"] });
const send = (m) => {
  const body = JSON.stringify({ jsonrpc: "2.0", ...m });
  child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
};
const fail = (why) => {
  console.error(`lspcheck: ${cmd}: ${why}`);
  child.kill("SIGKILL");
  process.exit(1);
};
const timer = setTimeout(() => fail(`no answer to ${answered ? "shutdown" : "initialize"} in 60 s`), 60000);
child.on("error", (e) => fail(e.message));
child.on("exit", (code, sig) => {
  if (!answered) fail(`exited (${code ?? sig}) before answering initialize`);
  process.exit(0);
});
child.stdin.on("error", () => {});

let buf = Buffer.alloc(0);
let answered = false;
child.stdout.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const head = buf.indexOf("\r\n\r\n");
    if (head < 0) return;
    const len = Number(/Content-Length: *(\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
    if (buf.length < head + 4 + len) return;
    const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
    buf = buf.subarray(head + 4 + len);
    if (msg.method && msg.id !== undefined) send({ id: msg.id, result: null });
    if (msg.id === 1 && !msg.method) {
      if (!msg.result?.capabilities) fail(`initialize failed: ${JSON.stringify(msg.error)}`);
      answered = true;
      send({ method: "initialized", params: {} });
      send({ id: 2, method: "shutdown" });
    }
    if (msg.id === 2 && !msg.method) {
      clearTimeout(timer);
      send({ method: "exit" });
      child.stdin.end();
      // Some servers (tombi at times) stay after exit; it answered, so
      // it runs: end it.
      setTimeout(() => {
        console.error(`lspcheck: ${cmd}: still running 10 s after exit; killed`);
        child.kill("SIGKILL");
        process.exit(0);
      }, 10000).unref();
    }
  }
});
send({ id: 1, method: "initialize", params: { processId: process.pid, rootUri: pathToFileURL(process.cwd()).href, capabilities: {}, workspaceFolders: [],
  initializationOptions: JSON.parse(process.env.LSPCHECK_INIT_OPTIONS || "null") } });
