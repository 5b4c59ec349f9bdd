#!/usr/bin/env bash
# Runs a command so that it cannot outlive the process that started it.
#
# usage: watchdog.sh <grace-seconds> <command> [args...]
#
# The starter spawns this script as the leader of a new process group (setsid) with stdin connected to a
# pipe it keeps open. A small watcher subshell keeps the read end of that pipe; when it reaches end of file,
# the starter is gone (even after SIGKILL, because the kernel closes its pipe ends), so the watcher sends
# SIGTERM (then SIGCONT, so a SIGSTOPped process still sees it) to the whole group, waits up to the grace
# period and sends SIGKILL. The command itself replaces this shell with `exec`, so its PID is the one the
# starter saw: signals sent by the starter reach the real process, not a wrapper.
set -u
grace_seconds="$1"
shift

exec 3<&0
(
  trap '' TERM INT
  while read -r -u 3 _; do :; done
  kill -TERM -- "-$$" 2>/dev/null
  kill -CONT -- "-$$" 2>/dev/null
  deadline=$((SECONDS + grace_seconds))
  while kill -0 "$$" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  kill -KILL -- "-$$" 2>/dev/null
) 0</dev/null &

exec "$@" 0</dev/null 3<&-
