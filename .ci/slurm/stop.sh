#!/usr/bin/env bash
# Stop the cluster started by .ci/slurm/start.sh: each daemon by the PID in its
# pid file, never by name. A daemon counts as stopped when its PID is gone or a
# zombie (state Z: dead, waiting for its parent to reap it; a zombie keeps the
# daemon's name, so names prove nothing).
set -uo pipefail

STATE=${REDERIVE_SLURM_DIR:-/tmp/rederive-slurm}

alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

stop_pid() {
  local name=$1 pidfile=$2 pid
  [ -s "$pidfile" ] || return 0
  pid=$(tr -dc 0-9 <"$pidfile")
  [ -n "$pid" ] || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "slurm-stop: $name ($pid) ignored SIGTERM for 10 s, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null
      sleep 0.5
    fi
  fi
  # Reap it if it is our child (it is not when it daemonized itself).
  wait "$pid" 2>/dev/null
  if alive "$pid"; then
    echo "slurm-stop: $name ($pid) still running" >&2
    return 1
  fi
  rm -f "$pidfile"
  echo "slurm-stop: $name stopped" >&2
}

rc=0
stop_pid slurmd "$STATE/run/slurmd.pid" || rc=1
stop_pid slurmctld "$STATE/run/slurmctld.pid" || rc=1
stop_pid munged "$STATE/run/munged.pid" || rc=1
# The config symlink start.sh made, only if it points into this state directory.
if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$STATE/slurm.conf" ]; then
  rm -f /etc/slurm/slurm.conf
fi
exit $rc
