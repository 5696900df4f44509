#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for testing the Slurm executor:
#
#   scripts/slurm-local-cluster.sh start DIR    # prints "export SLURM_CONF=DIR/slurm.conf"
#   scripts/slurm-local-cluster.sh status DIR   # exit 0 when all three daemons run
#   scripts/slurm-local-cluster.sh stop DIR
#
# Everything lives in DIR: the munge key, socket, pid, log and seed files
# (DIR/munge), slurm.conf, the controller's state, slurmd's spool, and the
# daemons' pid and log files. The daemons run as root with proctrack/linuxproc
# and task/none (no cgroups or systemd needed, as in containers), on two free
# TCP ports chosen at each start, so several such clusters can run side by side.
# `start` installs slurm-wlm and munge with apt-get when they are missing, is a
# no-op when the cluster already runs, and restarts it cleanly from stale pid
# files. `stop` cancels the cluster's jobs, then ends exactly the daemons whose
# pid files are in DIR. Only the export line goes to standard output, so
# `eval "$(scripts/slurm-local-cluster.sh start DIR)"` sets up a shell.
#
# Without slurmdbd there is no accounting database: `sacct` answers "Slurm
# accounting storage is disabled". Job completions are logged as text in
# DIR/jobcomp.txt instead, and `squeue -t all` shows ended jobs for MinJobAge.
#
# Exit status 77: the cluster cannot run here (not root and no passwordless
# sudo, or Slurm missing and no apt-get); tests skip on it.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
cmd=$1
case $cmd in start|stop|status) ;; *) usage ;; esac

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    exec sudo -n "$0" "$@"
  fi
  echo "slurm-local-cluster: the daemons must run as root, and passwordless sudo is not available" >&2
  exit 77
fi

[[ $cmd == start ]] && mkdir -p "$2"
if [[ ! -d $2 ]]; then
  [[ $cmd == stop ]] && exit 0
  echo "slurm-local-cluster: no cluster folder $2" >&2
  exit 3
fi
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf
node=gpumux-node
timeout=${SLURM_LOCAL_CLUSTER_TIMEOUT:-60}  # seconds for each bounded wait

# The daemons, in stopping order: name and pid file.
daemons=(slurmd "$dir/slurmd.pid" slurmctld "$dir/slurmctld.pid" munged "$dir/munge/munged.pid")

# The pid in pid file $2 if it is a live $1 started for this folder (its
# command line names a file in DIR), so a stale pid reused by another process
# is never taken for ours.
live_pid() {
  local pid
  pid=$(cat "$2" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]] || return 1
  tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF "$dir/" || return 1
  echo "$pid"
}

# Waits (bounded) until command "$@" fails; returns 1 on timeout.
wait_until_not() {
  local end=$((SECONDS + timeout))
  while "$@"; do
    ((SECONDS < end)) || return 1
    sleep 0.2
  done
}

jobs_running() { squeue -h -t running,completing,configuring,suspended -o %i 2>/dev/null | grep -q .; }

cancel_jobs() {
  live_pid slurmctld "$dir/slurmctld.pid" >/dev/null || return 0
  local jobs
  jobs=$(squeue -h -o %F 2>/dev/null | sort -u) || return 0
  [[ -z $jobs ]] && return 0
  # shellcheck disable=SC2086  # one job id per word
  scancel $jobs 2>/dev/null || true
  # Their slurmstepd processes are no daemon of ours: let slurmd end them.
  wait_until_not jobs_running ||
    echo "slurm-local-cluster: jobs still running after ${timeout} s" >&2
}

stop_all() {
  cancel_jobs
  local i name file pid
  for ((i = 0; i < ${#daemons[@]}; i += 2)); do
    name=${daemons[i]} file=${daemons[i + 1]}
    if pid=$(live_pid "$name" "$file"); then
      kill -TERM "$pid" 2>/dev/null || true
      if ! wait_until_not live_pid "$name" "$file" >/dev/null; then
        echo "slurm-local-cluster: $name (pid $pid) ignored SIGTERM; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
        wait_until_not live_pid "$name" "$file" >/dev/null || true
      fi
    fi
    rm -f "$file"
  done
}

# Prints "running N" per daemon; succeeds when all three run.
status() {
  local i all=0 pid
  for ((i = 0; i < ${#daemons[@]}; i += 2)); do
    if pid=$(live_pid "${daemons[i]}" "${daemons[i + 1]}"); then
      echo "${daemons[i]}: running (pid $pid)"
    else
      echo "${daemons[i]}: stopped"
      all=1
    fi
  done
  return $all
}

install_if_missing() {
  local p missing=()
  for p in slurm-wlm munge; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  if ! command -v apt-get >/dev/null; then
    echo "slurm-local-cluster: ${missing[*]} missing and no apt-get to install them" >&2
    exit 77
  fi
  echo "slurm-local-cluster: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Wait for another apt run (e.g. a parallel CI job) rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq slurm-wlm munge >&2
}

# True when some local TCP socket, listening or not, uses port $1.
port_used() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" 'NR > 1 && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# A free port below the kernel's ephemeral range, different from $1.
free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 12000))
    [[ $p != "${1:-}" ]] && ! port_used "$p" && { echo "$p"; return; }
  done
  echo "slurm-local-cluster: no free TCP port found" >&2
  return 1
}

write_conf() {
  local ctld_port slurmd_port hw
  ctld_port=$(free_port)
  slurmd_port=$(free_port "$ctld_port")
  # This machine as slurmd sees it: CPUs, sockets, cores, threads, RealMemory.
  hw=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
  cat >"$conf" <<EOF
# Generated by scripts/slurm-local-cluster.sh: a one-node cluster on localhost.
ClusterName=gpumux
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munged.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
# Start jobs at once (tests wait for them) rather than batching scheduling.
SchedulerParameters=batch_sched_delay=0,sched_interval=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=300
KillWait=5
MailProg=/bin/true
# The node is what slurmd -C reports; never drain it over a small mismatch.
SlurmdParameters=config_overrides
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# Why `start` failed, for the EXIT trap that reports it and cleans up.
why="start failed"
die() { why=$1; exit 1; }

start_failed() {
  echo "slurm-local-cluster: $why" >&2
  local log
  for log in "$dir/munge/munged.log" "$dir/slurmctld.log" "$dir/slurmd.log"; do
    [[ -f $log ]] && { echo "--- tail of $log" >&2; tail -n 15 "$log" >&2; }
  done
  stop_all
}

start() {
  install_if_missing
  if status >/dev/null; then
    echo "export SLURM_CONF=$conf"
    return
  fi
  stop_all  # whatever part of an earlier cluster still runs
  # From here on, any failure or interruption stops what was started.
  trap start_failed EXIT
  trap 'why="interrupted"; exit 130' INT TERM
  # munged insists that everyone may traverse the socket's folders.
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
  chmod 755 "$dir" "$dir/munge"
  if [[ ! -s $dir/munge/munge.key ]]; then
    (umask 077 && head -c 1024 /dev/urandom >"$dir/munge/munge.key")
  fi
  chmod 400 "$dir/munge/munge.key"
  write_conf

  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munged.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" || die "munged did not start"
  munge -S "$dir/munge/munged.socket" -n >/dev/null || die "munged does not answer"
  slurmctld -f "$conf" || die "slurmctld did not start"
  slurmd -f "$conf" -N "$node" || die "slurmd did not start"

  local end=$((SECONDS + timeout)) state=""
  until [[ $state == idle ]]; do
    ((SECONDS < end)) || die "node $node not idle after ${timeout} s (state: ${state:-none})"
    sleep 0.5
    state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null) || state=""
  done
  trap - EXIT INT TERM
  echo "slurm-local-cluster: node $node idle (ports in $conf)" >&2
  echo "export SLURM_CONF=$conf"
}

case $cmd in
  start) start ;;
  stop) stop_all ;;
  status)
    status || exit 3
    sinfo 2>/dev/null || true
    ;;
esac
