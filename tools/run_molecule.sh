#!/usr/bin/env bash
# Run molecule scenarios (MOLECULE_JOBS at a time, default 2) and report each one honestly.
#   tools/run_molecule.sh              every scenario under extensions/molecule/
#   tools/run_molecule.sh name [...]   only those
# Every scenario runs even when an earlier one fails; the exit code is non-zero if any failed.
# A scenario that molecule skipped or could not find counts as failed, never as passed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH"
export ANSIBLE_FORCE_COLOR="${ANSIBLE_FORCE_COLOR:-0}"
export PY_COLORS="${PY_COLORS:-0}"
LOGDIR="$ROOT/.build/molecule-logs"
mkdir -p "$LOGDIR"

if [ "$#" -gt 0 ]; then
  scenarios=("$@")
else
  # Longest first (seconds of the last full run, in tools/molecule-durations.txt; a scenario not
  # listed there counts as the longest): two at a time, the last one to start is a short one and
  # the run does not end waiting on one long scenario alone.
  mapfile -t scenarios < <(find extensions/molecule -mindepth 2 -maxdepth 2 -name molecule.yml \
    -printf '%h\n' | sed 's#^extensions/molecule/##' | sort \
    | awk 'NR == FNR { if ($1 !~ /^#/) secs[$1] = $2; next }
           { print (($1 in secs) ? secs[$1] : 99999), $1 }' tools/molecule-durations.txt - \
    | sort -k1,1nr -k2,2 | cut -d' ' -f2)
fi
[ "${#scenarios[@]}" -gt 0 ] || { echo "no molecule scenarios found" >&2; exit 1; }

# A broken instance file of an interrupted earlier run makes every later molecule command fail.
for s in "${scenarios[@]}"; do
  rm -rf "$HOME"/.ansible/tmp/molecule.*."$s"
done

# Scenarios are independent (own container ascend-<scenario>, own molecule state): run
# MOLECULE_JOBS of them at a time. Much of a scenario is waiting (systemd boot, engines starting,
# the simulated installers, the reboot), so two at a time is faster even on 2 cores.
JOBS="${MOLECULE_JOBS:-2}"
RESULTS="$(mktemp -d)"
trap 'rm -rf "$RESULTS"' EXIT

# molecule's SCENARIO RECAP pads names to 26 characters: a longer name (or one of exactly 26,
# such as ascend_runtime_containerd2) is followed by the colon directly.
run_one() {
  local s="$1" start rc=passed
  start=$(date +%s)
  if molecule test -s "$s" >"$LOGDIR/$s.log" 2>&1 && grep -Eq "^$s *: .*successful=" "$LOGDIR/$s.log" \
      && ! grep -Eq "^$s *: .*failed=[1-9]" "$LOGDIR/$s.log"; then
    rc=passed
  else
    rc=FAILED
  fi
  echo "$rc $(( $(date +%s) - start ))" >"$RESULTS/$s"
  echo "=== $s: $rc ($(( $(date +%s) - start )) s)"
}

total_start=$(date +%s)
running=0
for s in "${scenarios[@]}"; do
  if [ "$running" -ge "$JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
  echo "=== molecule test -s $s (log: $LOGDIR/$s.log)"
  run_one "$s" &
  running=$((running + 1))
done
wait

failed=0
for s in "${scenarios[@]}"; do
  read -r st secs <"$RESULTS/$s" 2>/dev/null || { st=FAILED; secs=0; }
  if [ "$st" != passed ]; then
    failed=1
    echo "--- last 60 lines of $LOGDIR/$s.log"
    tail -n 60 "$LOGDIR/$s.log"
  fi
done

echo
echo "molecule summary ($JOBS at a time, $(( $(date +%s) - total_start )) s in all):"
for s in "${scenarios[@]}"; do
  read -r st secs <"$RESULTS/$s" 2>/dev/null || { st=FAILED; secs=0; }
  printf '  %-28s %-7s %4s s\n' "$s" "$st" "$secs"
done
exit "$failed"
