"""Random player: a bot run as its own process, speaking the JSON-lines protocol.

It plays any game by choosing uniformly among the legal actions, with the seed that the
hello message hands it, so a tournament seed reproduces its choices. See
docs/bot-protocol.md; bots/random_program.bot.json is the manifest that runs it.
"""

import json
import random
import sys


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            rng = random.Random(message["seed"])
            answer = {"type": "ready"}
        elif kind == "act":
            answer = {"type": "action", "action": rng.choice(message["legal"])}
        elif kind == "end":
            return
        else:
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
