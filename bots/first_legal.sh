#!/bin/sh
# First legal: a bot in POSIX shell that answers the first legal action.
# It speaks the JSON-lines bot protocol (docs/bot-protocol.md) with nothing but sh: tourney writes
# compact JSON, so the first string of "legal" can be cut out of the line with the shell's own
# pattern removal (no grep or sed: a process started per move cost a game ~1 s of CPU).
# It declines Nine Tails: there, always taking the first legal choice drags a game to the
# 3,000-turn move cap (seen: 40,000-event games), which helps nobody.
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*'"game":"nine-tails"'*)
      printf '{"type":"decline","reason":"first-legal play stalls Nine Tails games to the move cap"}\n' ;;
    *'"type":"hello"'*)
      printf '{"type":"ready"}\n' ;;
    *'"type":"act"'*)
      case "$line" in
        *'"legal":["'*) action=${line#*'"legal":["'}; action=${action%%'"'*} ;;
        *) action= ;;
      esac
      printf '{"type":"action","action":"%s"}\n' "$action" ;;
    *'"type":"end"'*)
      exit 0 ;;
  esac
done
