"""A JSON-lines bot that plays the first legal action until it misbehaves as told.

Usage: misbehave.py MODE [AT [TAG]]. It first starts a grandchild (``sleep 300.TAG``, which keeps
this bot's stdout open, except in mode ``close``) and writes "<own pid> <grandchild pid>" to ``_pids/<own pid>``
in its working directory (when it can: in the sandbox its folder is read-only), so a test can
check that nothing it started outlives it: by those pids, or by the TAG (digits) in command lines.

Modes at the handshake: ``hs-exit`` (exits at once), ``hs-wrong`` (answers something
other than ready), ``hs-garbage`` (answers a line that is not JSON), ``hs-decline``
(declines, with a reason full of brackets), ``hs-hang`` (never answers).
Modes at act number AT (default 2, so mid-game): ``crash`` (exits with code 3),
``close`` (closes its stdout and keeps running, so its output ends before it exits),
``hang`` (sleeps forever), ``not-json``, ``not-object`` (a JSON array), ``wrong-type`` (an
object that is not an action),
``move-type`` (a legal action under the type "move"),
``not-string`` (an action that is a number), ``illegal`` (an action not in legal),
``flood`` (2 MiB without a newline), ``twice`` (two answers to one request), ``no-newline`` (its
answer without the line feed, flushed), ``ok`` (never misbehaves).
``hs-no-flush`` answers hello with ready but never flushes (as a `print` to a pipe does).
Mode ``slow`` answers every act from number AT on after 0.4 s, and appends the ``time_bank_ms``
of each act it receives to ``_banks/<own pid>``, so a test can watch the bank being charged.
``ready-twice`` answers hello with ready and an action nobody asked for yet (before its first act).
``slow-F`` takes F times its move time (``deadline_ms``) for each of its first AT acts, and writes
the ``time_bank_ms`` of every act to stderr.
"""

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1]
AT = int(sys.argv[2]) if len(sys.argv) > 2 else 2
SLOW_SECONDS = 0.4
TAG = sys.argv[3] if len(sys.argv) > 3 else "0"


def say(message):
    sys.stdout.write(message if isinstance(message, str) else json.dumps(message) + "\n")
    sys.stdout.flush()


def sleep_forever():
    while True:
        time.sleep(300)


def misbehave(legal):
    if MODE == "crash":
        sys.exit(3)
    if MODE == "close":
        sys.stdout.close()
        os.close(1)
        sleep_forever()
    if MODE == "hang":
        sleep_forever()
    if MODE == "not-json":
        say("play the first one, please\n")
    elif MODE == "not-object":
        say(["action", legal[0]])
    elif MODE == "wrong-type":
        say({"type": "move", "move": legal[0]})
    elif MODE == "move-type":
        say({"type": "move", "action": legal[0]})
    elif MODE == "not-string":
        say({"type": "action", "action": 7})
    elif MODE == "illegal":
        say({"type": "action", "action": "teleport:moon"})
    elif MODE == "twice":
        # Both answers in one write, so the second is waiting before the next request (a
        # second answer written later would race with that request).
        first, second = ({"type": "action", "action": action} for action in (legal[0], legal[-1]))
        say(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    elif MODE == "no-newline":
        sys.stdout.write(json.dumps({"type": "action", "action": legal[0]}))
        sys.stdout.flush()
        sleep_forever()
    elif MODE == "flood":
        chunk = "x" * 65536
        for _ in range(32):
            sys.stdout.write(chunk)
        sys.stdout.flush()
        sleep_forever()
    else:
        say({"type": "action", "action": legal[0]})


def main():
    # In mode "close" the grandchild must not hold stdout, or closing it would not show.
    grandchild = subprocess.Popen(["sleep", f"300.{TAG}"], stdout=subprocess.DEVNULL if MODE == "close" else None)
    try:
        os.makedirs("_pids", exist_ok=True)
        with open(os.path.join("_pids", str(os.getpid())), "w") as out:
            out.write(f"{os.getpid()} {grandchild.pid}\n")
    except OSError:
        pass
    if MODE == "hs-exit":
        sys.exit(0)
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if MODE == "hs-wrong":
                say({"type": "hello", "protocol": 1})
            elif MODE == "hs-garbage":
                say("READY!\n")
            elif MODE == "hs-decline":
                say({"type": "decline", "reason": "I play [bold]chess[/bold] only [/x]"})
            elif MODE == "hs-hang":
                sleep_forever()
            elif MODE == "hs-no-flush":
                sys.stdout.write(json.dumps({"type": "ready"}) + "\n")
                sleep_forever()
            elif MODE == "ready-twice":
                say(json.dumps({"type": "ready"}) + "\n" + json.dumps({"type": "action", "action": "end"}) + "\n")
            else:
                say({"type": "ready"})
        elif kind == "act":
            acts += 1
            if MODE == "slow":
                os.makedirs("_banks", exist_ok=True)
                with open(os.path.join("_banks", str(os.getpid())), "a") as out:
                    out.write(f"{message['time_bank_ms']}\n")
                if acts >= AT:
                    time.sleep(SLOW_SECONDS)
                say({"type": "action", "action": message["legal"][0]})
            elif MODE.startswith("slow-"):
                print(f"act {acts}: time_bank_ms {message['time_bank_ms']}", file=sys.stderr, flush=True)
                if acts <= AT:
                    time.sleep(float(MODE[5:]) * message["deadline_ms"] / 1000)
                say({"type": "action", "action": message["legal"][0]})
            elif acts == AT:
                misbehave(message["legal"])
            else:
                say({"type": "action", "action": message["legal"][0]})
        elif kind == "end":
            return


if __name__ == "__main__":
    main()
