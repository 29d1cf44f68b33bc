#!/usr/bin/env python3
"""A single-threaded ACP agent that never reads while it writes.

It is the hostile peer of the flood tests (docs/testing.md): for each
line it reads it writes at once, blocking while its output is full, and
reads nothing meanwhile, as a plain `for line in stdin` loop does.

- initialize is answered with an empty capability set;
- every other request is answered with {"echo": id}; when the request's
  params hold "ask": true, the agent first sends a request of its own,
  flood/ask with id "a<id>", toward the client;
- responses (answers to its own requests) are counted;
- at the end of its input it writes one notification, flood/stats, with
  the number of answers it received, and exits 0.
"""
import json
import sys

out = sys.stdout
answers = 0
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    m = json.loads(line)
    if "method" not in m:
        answers += 1
        continue
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        res = {"protocolVersion": 1, "agentCapabilities": {}}
    else:
        params = m.get("params") or {}
        if params.get("ask"):
            out.write(json.dumps({"jsonrpc": "2.0", "id": "a%s" % m["id"], "method": "flood/ask", "params": {"of": m["id"]}}) + "\n")
        res = {"echo": m["id"]}
    out.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": res}) + "\n")
    out.flush()
out.write(json.dumps({"jsonrpc": "2.0", "method": "flood/stats", "params": {"answers": answers}}) + "\n")
out.flush()
