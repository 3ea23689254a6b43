#!/bin/sh
# A POSIX-shell bot that starts a grandchild (`sleep 300 &`, holding this bot's stdout
# open), records "<own pid> <grandchild pid>" in _pids/, plays the first legal action
# once and then exits mid-game with code 3 at its second act.
sleep 300 &
mkdir -p _pids
echo "$$ $!" > "_pids/$$"
acts=0
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      printf '{"type":"ready"}\n' ;;
    *'"type":"act"'*)
      acts=$((acts + 1))
      if [ "$acts" -ge 2 ]; then exit 3; fi
      action=$(printf '%s\n' "$line" | grep -o '"legal":\["[^"]*"' | head -n 1 | sed 's/^"legal":\["//; s/"$//')
      printf '{"type":"action","action":"%s"}\n' "$action" ;;
    *'"type":"end"'*)
      exit 0 ;;
  esac
done
