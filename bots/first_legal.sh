#!/bin/sh
# First legal: a bot in POSIX shell that answers the first legal action.
# It speaks the JSON-lines bot protocol (docs/bot-protocol.md) with nothing but sh, grep and sed:
# tourney writes compact JSON, so the first string of "legal" can be cut out of the line.
# It declines Nine Tails: there, always taking the first legal choice drags a game to the
# 3,000-turn move cap (seen: 40,000-event games), which helps nobody.
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*'"game":"nine-tails"'*)
      printf '{"type":"decline","reason":"first-legal play stalls Nine Tails games to the move cap"}\n' ;;
    *'"type":"hello"'*)
      printf '{"type":"ready"}\n' ;;
    *'"type":"act"'*)
      action=$(printf '%s\n' "$line" | grep -o '"legal":\["[^"]*"' | head -n 1 | sed 's/^"legal":\["//; s/"$//')
      printf '{"type":"action","action":"%s"}\n' "$action" ;;
    *'"type":"end"'*)
      exit 0 ;;
  esac
done
