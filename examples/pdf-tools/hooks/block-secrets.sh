#!/bin/sh
# Blocks writes to files whose path mentions "secret": exit code 2 tells Claude Code to deny the tool call.
input=$(cat)
case "$input" in
  *secret*) echo "writing secrets is blocked by pdf-tools" >&2; exit 2 ;;
esac
exit 0
