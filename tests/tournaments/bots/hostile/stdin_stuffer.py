"""Attack: stall tourney. A program that, at its first act, fills its own stdin pipe (opening it
again for writing through /proc/self/fd/0), answers, and never reads its input again: a blocking
write of the next request would hang tourney for ever. (In the sandbox the pipe, tourney's, is
not the bot's uid's to open: it can only stop reading, and then times out.)"""

import json
import os
import sys
import time

sys.stdin.readline()
print(json.dumps({"type": "ready"}), flush=True)
request = json.loads(sys.stdin.readline())
try:
    stuffing = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)
except OSError as error:
    print(f"cannot open my input for writing: {error.strerror}", file=sys.stderr, flush=True)
else:
    written = 0
    try:
        while True:
            written += os.write(stuffing, b"x" * 4096)
    except BlockingIOError:
        pass
    print(f"stuffed {written} bytes into my own input", file=sys.stderr, flush=True)
print(json.dumps({"type": "action", "action": request["legal"][0]}), flush=True)
while True:
    time.sleep(300)
