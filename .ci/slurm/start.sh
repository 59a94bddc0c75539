#!/usr/bin/env bash
# Bring up a real single-node SLURM cluster on this machine (as root), for the
# workflow's SLURM test: Debian's slurm-wlm + munge, every file under one state
# directory, nothing in /etc touched. Idempotent: if the cluster of this state
# directory already answers `srun true`, it is left alone.
#
# One system path is used: /etc/slurm/slurm.conf becomes a symlink to the state
# directory's slurm.conf, because the plugin's job step strips SLURM_CONF from
# the environment before its nested `srun` (as on a real cluster, the config must
# be at the default place). A regular file there (a real cluster's) is never
# replaced; stop.sh removes the symlink.
#
#   .ci/slurm/start.sh            # prints the SLURM_CONF line to export
#   eval "$(.ci/slurm/start.sh)"  # ... and exports it
#   .ci/slurm/stop.sh             # stops the daemons by PID
#
# State directory: $REDERIVE_SLURM_DIR (default /tmp/rederive-slurm).
# Settings that work with snakemake-executor-plugin-slurm on a cluster without
# slurmdbd (measured, see issue 13): select/cons_tres + CR_Core_Memory,
# proctrack/linuxproc, task/none, no accounting (so no sacct: the profile polls
# with squeue), DefMemPerCPU (else a bare job takes the whole node),
# MinJobAge >= 3 x the profile's slurm-init-seconds-before-status-checks (else
# the plugin silently falls back to sacct and never sees a job finish).
set -euo pipefail

STATE=${REDERIVE_SLURM_DIR:-/tmp/rederive-slurm}
CONF=$STATE/slurm.conf

say() { echo "slurm-start: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
  say "needs root (starts slurmctld, slurmd and munged)"
  exit 2
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || { say "slurm-wlm/munge missing and no apt-get"; exit 3; }
  say "installing slurm-wlm and munge with apt-get (about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends slurm-wlm munge >"$STATE.apt.log" 2>&1 ||
    { apt-get update -q >>"$STATE.apt.log" 2>&1 &&
      apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$STATE.apt.log" 2>&1; } ||
    { say "apt-get failed, see $STATE.apt.log"; exit 3; }
fi

if [ -f "$CONF" ] && SLURM_CONF=$CONF timeout 20 srun --quiet -t 1 true 2>/dev/null; then
  say "cluster already up ($CONF)"
  echo "export SLURM_CONF=$CONF"
  exit 0
fi
# Anything left from an earlier start of this state directory goes first, and
# its saved jobs with it (a fresh cluster numbers jobs from 1).
"$(dirname "$0")/stop.sh" >/dev/null 2>&1 || true
rm -rf "$STATE/spool"

ETC_CONF=/etc/slurm/slurm.conf
if [ -e "$ETC_CONF" ] && [ ! -L "$ETC_CONF" ]; then
  say "$ETC_CONF exists and is not ours: this machine has its own SLURM; not replacing it"
  exit 5
fi

mkdir -p "$STATE"/{munge,spool/ctld,spool/d,log,run}
chmod 700 "$STATE/munge"
if [ ! -s "$STATE/munge/munge.key" ]; then
  head -c 1024 /dev/urandom >"$STATE/munge/munge.key"
  chmod 400 "$STATE/munge/munge.key"
fi
SOCKET=$STATE/munge/munge.socket
munged --force --key-file="$STATE/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$STATE/run/munged.pid" --log-file="$STATE/log/munged.log" \
  --seed-file="$STATE/munge/munged.seed"

# The node as slurmd sees it, minus 5% memory for the daemons and the OS.
node=$(slurmd -C | head -1)
host=$(hostname -s)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
real=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
mem=$((real * 95 / 100))
topology=$(grep -o 'Boards=[0-9]* SocketsPerBoard=[0-9]* CoresPerSocket=[0-9]* ThreadsPerCore=[0-9]*' <<<"$node")

cat >"$CONF" <<CONFEOF
# Written by .ci/slurm/start.sh: one node, this machine.
ClusterName=rederive
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$STATE/spool/ctld
SlurmdSpoolDir=$STATE/spool/d
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
MinJobAge=600
DefMemPerCPU=1000
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus $topology RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONFEOF

mkdir -p /etc/slurm
ln -sfn "$CONF" "$ETC_CONF"

slurmctld -f "$CONF"
slurmd -f "$CONF"

# sinfo can call the node idle before slurmd has registered: wait for a real job.
export SLURM_CONF=$CONF
for _ in $(seq 60); do
  if timeout 20 srun --quiet -t 1 true 2>/dev/null; then
    say "cluster up: $cpus CPUs, $mem MB on node $host ($CONF)"
    echo "export SLURM_CONF=$CONF"
    exit 0
  fi
  sleep 1
done
say "no job ran within a minute; logs in $STATE/log"
tail -5 "$STATE"/log/*.log >&2 || true
exit 4
