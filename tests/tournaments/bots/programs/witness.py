"""A bot that writes down everything it can see of itself and the processes above it, then plays.

It records its argv, its environment, its hello message, and for itself and every ancestor it
may read (/proc/<pid>/cmdline, environ, status), one JSON file per process it runs as, in the
folder named by its first argument (outside a sandbox), and as a line ``witness: JSON`` on stderr
(kept with --bot-logs). The seed tests look for the tournament's seed in them.
"""

import contextlib
import json
import os
import sys
from pathlib import Path


def read(path):
    try:
        return Path(path).read_bytes().decode("utf-8", "replace")
    except OSError as error:
        return f"unreadable: {error.strerror}"


def lineage():
    out, pid = [], os.getpid()
    while pid > 1:
        out.append({"pid": pid, "cmdline": read(f"/proc/{pid}/cmdline"), "environ": read(f"/proc/{pid}/environ"),
                    "status": read(f"/proc/{pid}/status")})
        stat = read(f"/proc/{pid}/stat")
        try:
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (IndexError, ValueError):
            break
    return out


def main():
    seen = {"argv": sys.argv, "environ": dict(os.environ), "processes": lineage(), "messages": []}
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "hello":
            seen["messages"].append(message)
            # Before play (killed or not): into the folder if it can reach it, and to stderr (--bot-logs) in any case.
            with contextlib.suppress(OSError):
                Path(sys.argv[1], f"{os.getpid()}.json").write_text(json.dumps(seen))
            sys.stderr.write("witness: " + json.dumps(seen) + "\n")
            sys.stderr.flush()
            answer = {"type": "ready"}
        elif message.get("type") == "act":
            answer = {"type": "action", "action": message["legal"][0]}
        else:
            break
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
