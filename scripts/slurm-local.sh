#!/usr/bin/env bash
# A real one-node SLURM cluster on this machine, for the SLURM tests (and to try `executor: slurm`).
#
#   scripts/slurm-local.sh start    # install slurm-wlm and munge if missing (as root), start
#                                   # munged, slurmctld and slurmd; wait until the node is idle
#   scripts/slurm-local.sh stop     # cancel every job, stop the daemons started here, check none is left
#   scripts/slurm-local.sh status   # the node's state (sinfo), or exit 1 when the cluster is not up
#   scripts/slurm-local.sh env      # the line to source: export SLURM_CONF=...
#
# Everything (slurm.conf, munge key and socket, state, spool, logs, pid files) lives in one directory
# of this checkout's own, $CNFGEN_QUEENS_SLURM_DIR (default /tmp/cnfgen-queens-slurm-<12 hex digits of
# the sha256 of the checkout's absolute path>: short, for munge's socket path); the system's /etc/slurm
# and /etc/munge are not touched, and every address is this machine's (the node is reached on loopback).
# The two ports (slurmctld's, slurmd's) are found free at start, unless given
# ($CNFGEN_QUEENS_SLURM_CTLD_PORT, $CNFGEN_QUEENS_SLURM_SLURMD_PORT), and written into its slurm.conf;
# a running cluster keeps its own.  So two checkouts run their clusters side by side, and `stop` stops
# only the daemons whose pid files are in its own directory.
# Clients find the cluster through SLURM_CONF=$DIR/slurm.conf.  Both verbs are idempotent: start on a
# running cluster checks it and returns, stop on a stopped one does nothing.  Needs root (the daemons
# run as root: SlurmUser=root, as on a single test node).
set -euo pipefail

CHECKOUT=$(cd "$(dirname "$0")/.." && pwd -P)
DIR=${CNFGEN_QUEENS_SLURM_DIR:-/tmp/cnfgen-queens-slurm-$(printf %s "$CHECKOUT" | sha256sum | cut -c1-12)}
NODE=$(hostname -s)
CONF=$DIR/slurm.conf
export SLURM_CONF=$CONF

say() { echo "slurm-local: $*" >&2; }
die() {
    say "error: $*"
    exit 1
}

alive() { # alive PIDFILE: the daemon whose pid the file holds is running (and is a daemon of ours by name,
    # not a process that got the pid of one that died)
    local pid name
    [[ -s $1 ]] || return 1
    pid=$(cat "$1")
    name=$(basename "$1" .pid)
    kill -0 "$pid" 2>/dev/null && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name"* ]]
}

conf_port() { # conf_port KEY: the port the running cluster's slurm.conf holds
    sed -n "s/^$1=\([0-9]*\)$/\1/p" "$CONF" 2>/dev/null | head -1
}

choose_ports() { # CTLD_PORT and SLURMD_PORT: given, the running cluster's, or two found free now
    CTLD_PORT=${CNFGEN_QUEENS_SLURM_CTLD_PORT:-}
    SLURMD_PORT=${CNFGEN_QUEENS_SLURM_SLURMD_PORT:-}
    if alive "$DIR/run/slurmctld.pid" || alive "$DIR/run/slurmd.pid"; then
        CTLD_PORT=${CTLD_PORT:-$(conf_port SlurmctldPort)}
        SLURMD_PORT=${SLURMD_PORT:-$(conf_port SlurmdPort)}
    fi
    if [[ -z $CTLD_PORT || -z $SLURMD_PORT ]]; then
        # two ports nothing listens on, below Linux's ephemeral range (32768-60999) so that no client's
        # outgoing connection takes one before the daemons bind it
        read -r free1 free2 < <(python3 -c '
import random, socket
found = []
for port in random.sample(range(20000, 32000), 400):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            continue
    found.append(port)
    if len(found) == 2:
        break
print(*found)')
        CTLD_PORT=${CTLD_PORT:-$free1}
        SLURMD_PORT=${SLURMD_PORT:-$free2}
    fi
    [[ -n $CTLD_PORT && -n $SLURMD_PORT && $CTLD_PORT != "$SLURMD_PORT" ]] || die "no two free ports found"
}

install() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
        return
    fi
    [[ $(id -u) -eq 0 ]] || die "slurm-wlm and munge are not installed; run as root to install them"
    say "installing slurm-wlm and munge (Debian packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; }
}

write_conf() {
    local cpus mem
    cpus=$(nproc --all)
    mem=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo) # MB, less a margin for the OS
    mkdir -p "$DIR"/{state,spool,log,run,tmp}
    cat >"$CONF.tmp" <<EOF
# Written by scripts/slurm-local.sh: a one-node test cluster, everything under $DIR.
ClusterName=cnfgenqueens
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
TmpFS=$DIR/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=1
SchedulerType=sched/backfill
KillWait=5
MinJobAge=60
SlurmdTimeout=30
InactiveLimit=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$CONF.tmp" "$CONF"
}

start_munge() {
    local m=$DIR/munge
    mkdir -p "$m"
    chmod 0700 "$m"
    if [[ ! -s $m/munge.key ]]; then
        dd if=/dev/urandom of="$m/munge.key.tmp" bs=1024 count=1 status=none
        chmod 0400 "$m/munge.key.tmp"
        mv "$m/munge.key.tmp" "$m/munge.key"
    fi
    if alive "$m/munged.pid"; then
        return
    fi
    munged --force --socket="$m/munge.socket" --key-file="$m/munge.key" --pid-file="$m/munged.pid" \
        --log-file="$m/munged.log" --seed-file="$m/munged.seed" ||
        die "munged did not start (see $m/munged.log)"
}

node_state() {
    sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -1
}

start() {
    install
    choose_ports
    write_conf
    start_munge
    if ! alive "$DIR/run/slurmctld.pid"; then
        slurmctld -f "$CONF" || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
    fi
    if ! alive "$DIR/run/slurmd.pid"; then
        slurmd -f "$CONF" -N "$NODE" || die "slurmd did not start (see $DIR/log/slurmd.log)"
    fi
    local state=""
    for _ in $(seq 120); do
        state=$(node_state || true)
        case $state in
        idle | mixed | allocated) break ;;
        down* | drain* | fail*) scontrol update nodename="$NODE" state=resume 2>/dev/null || true ;;
        esac
        sleep 0.5
    done
    case $state in
    idle | mixed | allocated) ;;
    *) die "node $NODE is '${state:-not answering}' after 60 s (see $DIR/log/)" ;;
    esac
    say "up: node $NODE $state, ports $CTLD_PORT/$SLURMD_PORT, in $DIR; export SLURM_CONF=$CONF"
}

stop_daemon() { # stop_daemon NAME PIDFILE: SIGTERM, then SIGKILL after 10 s; fails if it is still there
    local name=$1 pidfile=$2 pid
    [[ -s $pidfile ]] || return 0
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            say "$name ($pid) ignored SIGTERM: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
        fi
    fi
    kill -0 "$pid" 2>/dev/null && die "$name ($pid) is still running"
    rm -f "$pidfile"
}

stepds() { # the job step daemons of this cluster: slurmstepd processes that inherited our SLURM_CONF
    local p
    for p in /proc/[0-9]*; do
        if [[ $(tr '\0' ' ' 2>/dev/null <"$p/cmdline") == slurmstepd:* ]] &&
            tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF "SLURM_CONF=$CONF"; then
            echo "${p#/proc/}"
        fi
    done
}

stop() {
    if alive "$DIR/run/slurmctld.pid"; then
        local jobs
        jobs=$(squeue -h -o %i 2>/dev/null || true) # every job of this cluster (it is ours alone)
        # shellcheck disable=SC2086
        [[ -z $jobs ]] || scancel --quiet $jobs 2>/dev/null || true
        for _ in $(seq 100); do
            [[ -z $(squeue -h -o %i 2>/dev/null) && -z $(stepds) ]] && break
            sleep 0.2
        done
    fi
    stop_daemon slurmd "$DIR/run/slurmd.pid"
    stop_daemon slurmctld "$DIR/run/slurmctld.pid"
    local left
    left=$(stepds)
    if [[ -n $left ]]; then
        say "job steps left after slurmd stopped: SIGKILL $left"
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null || true
        sleep 0.5
        [[ -z $(stepds) ]] || die "job steps still running: $(stepds)"
    fi
    stop_daemon munged "$DIR/munge/munged.pid"
    say "stopped (nothing left running from $DIR)"
}

status() {
    alive "$DIR/run/slurmctld.pid" && alive "$DIR/run/slurmd.pid" || {
        say "not running"
        exit 1
    }
    sinfo -N
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
