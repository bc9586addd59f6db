#!/usr/bin/env bash
# The Slurm launch, end to end on a real (single-node) Slurm: starts a private cluster on localhost
# in a temporary folder, submits the sbatch script `recipebook launch --target slurm --probe` writes,
# waits for it (sbatch --wait) and checks from the job's output that it ran with the expected node
# and task count, rendezvous variables and exported environment.
#
#   tests/slurm/run_probe_test.sh /path/to/recipebook
#
# Needs root and the Debian packages slurm-wlm and munge (scripts/debian-packages.txt). Without
# them it exits 77, which ctest reports as skipped (never as passed); with CI=true it fails instead. Everything it starts (munged,
# slurmctld, slurmd) runs in the foreground of this script and is stopped by pid on any exit.
#
# The probe needs no GPUs, so the script is generated with --no-gres (no --gpus-per-node request):
# the cluster's node has CPUs only, and "GPUs per node" is only what torchrun would be told.
# RB_KEEP_TMP=1 keeps the temporary folder (configuration, logs, job output) for inspection.
set -uo pipefail

BIN=${1:?usage: run_probe_test.sh /path/to/recipebook}
SKIP=77
# In CI (CI=true) the setup script has installed the packages and runs as root: a missing piece is a
# failure there, not a skip.
[ "${CI:-}" = "true" ] && SKIP=1

if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: the private Slurm cluster needs root (slurmd runs jobs as their user)"
  exit $SKIP
fi
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (apt-get install -y slurm-wlm munge)"
    exit $SKIP
  fi
done
if [ ! -x "$BIN" ]; then
  echo "FAIL: no recipebook binary at $BIN"
  exit 1
fi

T=$(mktemp -d /tmp/rb_slurm_probe.XXXXXX)
chmod 755 "$T"  # munged requires every folder above its socket to be searchable by all
PIDS=()

log_tail() {  # name file
  echo "----- last lines of $1 ($2) -----"
  tail -n 40 "$2" 2>/dev/null || echo "(no log)"
}

cleanup() {
  local rc=$?
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill "${PIDS[$i]}" 2>/dev/null
  done
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    # Give each daemon up to 10 s to go, then stop it hard.
    for _ in $(seq 1 100); do kill -0 "${PIDS[$i]}" 2>/dev/null || break; sleep 0.1; done
    kill -9 "${PIDS[$i]}" 2>/dev/null
    wait "${PIDS[$i]}" 2>/dev/null
  done
  if [ "${RB_KEEP_TMP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*"
  exit 1
}

mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/job"
chmod 755 "$T/munge"

# --- munge, with its own key and socket --------------------------------------------------------
mungekey --create --keyfile="$T/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$T/munge/munge.key"
SOCK="$T/munge/munge.socket"
munged --foreground --socket="$SOCK" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" >"$T/log/munged.stdout" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
if ! munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null 2>&1; then
  log_tail munged "$T/log/munged.log"
  fail "munged did not start"
fi

# --- slurmctld and slurmd with a private slurm.conf -----------------------------------------------
BASE=$((20000 + RANDOM % 20000))
CPUS=$(nproc)
export SLURM_CONF="$T/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=rbprobe
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$BASE
SlurmdPort=$((BASE + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/plugstack.conf
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=probe Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
: >"$T/plugstack.conf"  # no site SPANK plugins (pyxis) in the private cluster

slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.stdout" 2>&1 &
PIDS+=($!)
up=0
for _ in $(seq 1 150); do
  if ! kill -0 "${PIDS[-1]}" 2>/dev/null; then break; fi
  if scontrol ping 2>/dev/null | grep -q "is UP"; then up=1; break; fi
  sleep 0.2
done
if [ $up != 1 ]; then
  log_tail slurmctld "$T/log/slurmctld.log"
  log_tail "slurmctld output" "$T/log/slurmctld.stdout"
  fail "slurmctld did not start"
fi

slurmd -D -N localhost -f "$SLURM_CONF" >"$T/log/slurmd.stdout" 2>&1 &
PIDS+=($!)
idle=0
for _ in $(seq 1 150); do
  if ! kill -0 "${PIDS[-1]}" 2>/dev/null; then break; fi
  if [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; then idle=1; break; fi
  sleep 0.2
done
if [ $idle != 1 ]; then
  log_tail slurmd "$T/log/slurmd.log"
  log_tail "slurmd output" "$T/log/slurmd.stdout"
  log_tail slurmctld "$T/log/slurmctld.log"
  fail "the node did not come up idle (sinfo: $(sinfo -h -o '%t %N' 2>&1))"
fi

# --- the launch: 1 node x 2 "GPUs", TP 2, with env that must reach the task ---------------------
PORT=$((BASE + 7))
NAME=rbprobe
if ! "$BIN" launch --model Llama-3-8B --gpu h100 --gpus 2 --gpus-per-node 2 --tp 2 --seq 4096 --gbs 8 \
  --framework megatron-lm --target slurm --probe --no-gres --name "$NAME" --master-port "$PORT" \
  --env CUDA_DEVICE_MAX_CONNECTIONS=1 --env 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True' \
  --env 'NCCL_NVLS_ENABLE=$([ "$NVLINK_COUNT" -gt 0 ] && echo 1 || echo 0)' \
  -o "$T/job" >"$T/log/launch.out" 2>&1; then
  cat "$T/log/launch.out"
  fail "recipebook launch failed"
fi
SCRIPT="$T/job/$NAME.sbatch"
[ -f "$SCRIPT" ] || { cat "$T/log/launch.out"; fail "no $SCRIPT"; }
bash -n "$SCRIPT" || fail "the sbatch script does not parse"

# NVLINK_COUNT travels with sbatch's default --export=ALL; the script's expression turns it into 1.
if ! (cd "$T/job" && NVLINK_COUNT=4 timeout 180 sbatch --wait --parsable "$SCRIPT" >"$T/log/sbatch.out" 2>&1); then
  cat "$T/log/sbatch.out"
  cat "$T/job/$NAME"-*.out 2>/dev/null
  log_tail slurmd "$T/log/slurmd.log"
  log_tail slurmctld "$T/log/slurmctld.log"
  fail "the job did not finish cleanly"
fi
OUT=$(ls "$T/job/$NAME"-*.out 2>/dev/null | head -n 1)
[ -n "$OUT" ] || fail "no job output file in $T/job"
echo "----- job output ($OUT) -----"
cat "$OUT"

# --- the checks -----------------------------------------------------------------------------------
errors=0
expect() {  # description, pattern (grep -E, whole line), expected count
  local n
  n=$(grep -cE "$2" "$OUT")
  if [ "$n" != "$3" ]; then
    echo "FAIL: $1: $n line(s) match '$2', expected $3"
    errors=$((errors + 1))
  else
    echo "ok: $1"
  fi
}
expect "one task per node, on one node" '^RB_PROBE_SLURM .* nodeid=0 procid=0 ntasks=1 nnodes=1 ' 1
expect "no other task" '^RB_PROBE_SLURM ' 1
expect "rendezvous" "^RB_PROBE host=[^ ]+ NNODES=1 NODE_RANK=0 MASTER_ADDR=localhost MASTER_PORT=$PORT WORLD_SIZE=2 GPUS_PER_NODE=2$" 1
expect "CUDA_DEVICE_MAX_CONNECTIONS exported" '^RB_PROBE_ENV CUDA_DEVICE_MAX_CONNECTIONS=1$' 1
expect "PYTORCH_CUDA_ALLOC_CONF exported" '^RB_PROBE_ENV PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True$' 1
expect "NCCL_NVLS_ENABLE evaluated before Python" '^RB_PROBE_ENV NCCL_NVLS_ENABLE=1$' 1
expect "torchrun command" "^RB_PROBE_CMD torchrun --nnodes=1 --node_rank=0 --nproc_per_node=2 --master_addr=localhost --master_port=$PORT pretrain_gpt.py .*--tensor-model-parallel-size 2 " 1
[ $errors = 0 ] || fail "$errors check(s) failed"
echo "PASS: the Slurm probe ran with the expected rendezvous and environment"
