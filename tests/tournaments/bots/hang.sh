#!/bin/sh
# A POSIX-shell bot that starts a grandchild (`sleep 300 &`), records
# "<own pid> <grandchild pid>" in _pids/, shakes hands and then never answers.
sleep 300 &
mkdir -p _pids
echo "$$ $!" > "_pids/$$"
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      printf '{"type":"ready"}\n' ;;
    *'"type":"act"'*)
      while :; do sleep 300; done ;;
  esac
done
