#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests: munged, slurmctld and
# slurmd with a generated slurm.conf, every file (key, sockets, state, logs)
# under one directory, ports chosen free, run as the current user.
#
#   cluster.sh start DIR   # prints `export SLURM_CONF=...` once the node is idle
#   cluster.sh stop DIR    # stops the daemons started in DIR
#
# Needs Debian's slurm-wlm and munge (`cluster.sh install` installs them,
# with sudo unless root).
set -euo pipefail

cmd=${1:?usage: cluster.sh install | start DIR | stop DIR}

install() {
  local need=()
  for p in slurm-wlm munge; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null
}

free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "no free port" >&2
  return 1
}

start() {
  local d
  d=$(cd "$1" && pwd)
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  chmod 700 "$d/munge"
  PATH=$PATH:/usr/sbin
  mungekey --create --force --keyfile="$d/munge/munge.key" 2>/dev/null ||
    { dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null; }
  chmod 600 "$d/munge/munge.key"
  munged --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
    --seed-file="$d/munge/munged.seed"
  local user mem cport dport
  user=$(id -un)
  mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
  cport=$(free_port)
  dport=$(free_port)
  cat >"$d/slurm.conf" <<CONF
ClusterName=mpvtest
SlurmctldHost=localhost
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MaxArraySize=10000
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -i -f "$d/slurm.conf"
  slurmd -N localhost -f "$d/slurm.conf"
  for _ in $(seq 1 60); do
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$d/slurm.conf"
      return 0
    fi
    sleep 0.5
  done
  echo "the node did not come up; logs in $d/log" >&2
  tail -20 "$d/log/"*.log >&2 || true
  stop "$d"
  return 1
}

stop() {
  local d=$1 f
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    if [ -s "$d/$f" ]; then
      kill "$(cat "$d/$f")" 2>/dev/null || true
    fi
  done
  sleep 0.5
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    if [ -s "$d/$f" ]; then
      kill -9 "$(cat "$d/$f")" 2>/dev/null || true
    fi
  done
}

case $cmd in
  install) install ;;
  start) start "${2:?start DIR}" ;;
  stop) stop "${2:?stop DIR}" ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
