#!/bin/sh
# First legal: a bot in POSIX shell that plays any game by answering the first legal action.
# It speaks the JSON-lines bot protocol (docs/bot-protocol.md) with nothing but sh, grep and sed:
# tourney writes compact JSON, so the first string of "legal" can be cut out of the line.
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      printf '{"type":"ready"}\n' ;;
    *'"type":"act"'*)
      action=$(printf '%s\n' "$line" | grep -o '"legal":\["[^"]*"' | head -n 1 | sed 's/^"legal":\["//; s/"$//')
      printf '{"type":"action","action":"%s"}\n' "$action" ;;
    *'"type":"end"'*)
      exit 0 ;;
  esac
done
