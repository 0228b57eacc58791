#!/usr/bin/env bash
# Run molecule scenarios (MOLECULE_JOBS at a time, default 2) and report each one honestly.
#   tools/run_molecule.sh              every scenario under extensions/molecule/, and each scenario
#                                      of MIN_SCENARIOS once more on the tested minimum (name@min)
#   tools/run_molecule.sh name [...]   only those (site@min: the site scenario on the minimum)
# A name@min entry runs molecule, and through PATH its ansible-playbook, from .venv-min (the
# oldest supported ansible-core, requirements-min.txt) instead of .venv; the collection is the
# checkout's either way (config.yml's ANSIBLE_COLLECTIONS_PATH).
# Every scenario runs even when an earlier one fails; the exit code is non-zero if any failed.
# A scenario that molecule skipped or could not find counts as failed, never as passed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
export PATH="$ROOT/.venv/bin:$PATH"
export ANSIBLE_FORCE_COLOR="${ANSIBLE_FORCE_COLOR:-0}"
export PY_COLORS="${PY_COLORS:-0}"
LOGDIR="$ROOT/.build/molecule-logs"
mkdir -p "$LOGDIR"
# The scenarios `make test` also runs on the tested minimum.
MIN_SCENARIOS=(site)
# The ansible-core of the minimum, as `ansible-playbook --version` prints it.
MIN_CORE="$(awk -F'==' '$1 == "ansible-core" {print $2}' constraints-min.txt)"

if [ "$#" -gt 0 ]; then
  scenarios=("$@")
else
  # Longest first (wall seconds of the last recorded `make test`, tools/test-durations.txt, as
  # molecule:<scenario>; a scenario not listed there counts as the longest): the last one to
  # start is a short one and the run does not end waiting on one long scenario alone.
  mapfile -t scenarios < <( (find extensions/molecule -mindepth 2 -maxdepth 2 -name molecule.yml \
    -printf '%h\n' | sed 's#^extensions/molecule/##'; printf '%s@min\n' "${MIN_SCENARIOS[@]}") | sort \
    | awk 'NR == FNR { if ($1 ~ /^molecule:/) secs[substr($1, 10)] = $2; next }
           { b = $1; sub(/@min$/, "", b); print ((b in secs) ? secs[b] : 99999), $1 }' tools/test-durations.txt - \
    | sort -k1,1nr -k2,2 | cut -d' ' -f2)
fi
[ "${#scenarios[@]}" -gt 0 ] || { echo "no molecule scenarios found" >&2; exit 1; }

# base ENTRY: the scenario's directory name (site@min -> site).
base() { printf '%s' "${1%@min}"; }

need_min=0
for s in "${scenarios[@]}"; do
  [ "$(base "$s")" != "$s" ] && need_min=1
done
# The minimum's venv (cheap when it exists): if it does not build, its entries fail, the rest runs.
min_ok=1
if [ "$need_min" -eq 1 ] && ! tools/bootstrap.sh venv-min; then
  echo "the tested minimum's venv (.venv-min) did not build: the name@min entries fail" >&2
  min_ok=0
fi

# A broken instance file of an interrupted earlier run makes every later molecule command fail.
for s in "${scenarios[@]}"; do
  rm -rf "$HOME"/.ansible/tmp/molecule.*."$(base "$s")"
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
  local s="$1" name venv="$ROOT/.venv" start rc=passed
  name="$(base "$s")"
  [ "$name" = "$s" ] || venv="$ROOT/.venv-min"
  start=$(date +%s)
  if [ "$name" != "$s" ] && [ "$min_ok" -ne 1 ]; then
    echo "=== $s: .venv-min did not build" >"$LOGDIR/$s.log"
    echo "FAILED 0" >"$RESULTS/$s"
    echo "=== $s: FAILED (.venv-min did not build)"
    return
  fi
  # The ansible-playbook molecule will run (from PATH) is the venv's: for name@min, the minimum's.
  if (export PATH="$venv/bin:$PATH"
      echo "=== $s: $(command -v ansible-playbook): $(ansible-playbook --version | sed -n 1p)"
      if [ "$name" != "$s" ]; then
        ansible-playbook --version | sed -n 1p | grep -qF "[core $MIN_CORE]" \
          || { echo "=== $s: not the tested minimum's ansible-core $MIN_CORE" >&2; exit 1; }
      fi
      molecule test -s "$name") >"$LOGDIR/$s.log" 2>&1 \
      && grep -Eq "^$name *: .*successful=" "$LOGDIR/$s.log" \
      && ! grep -Eq "^$name *: .*failed=[1-9]" "$LOGDIR/$s.log"; then
    rc=passed
  else
    rc=FAILED
  fi
  echo "$rc $(( $(date +%s) - start ))" >"$RESULTS/$s"
  echo "=== $s: $rc ($(( $(date +%s) - start )) s)"
}

# Two entries of one scenario (site and site@min) share its container name (ascend-<scenario>)
# and molecule's state: never at once. The queue takes the first entry in order whose scenario
# is not running; when none can start, it waits for one to end.
total_start=$(date +%s)
declare -A RUNNING=()
pending=("${scenarios[@]}")
while [ "${#pending[@]}" -gt 0 ]; do
  pick=-1
  if [ "${#RUNNING[@]}" -lt "$JOBS" ]; then
    for i in "${!pending[@]}"; do
      busy=0
      for pid in "${!RUNNING[@]}"; do
        [ "${RUNNING[$pid]}" = "$(base "${pending[$i]}")" ] && busy=1
      done
      if [ "$busy" -eq 0 ]; then pick=$i; break; fi
    done
  fi
  if [ "$pick" -lt 0 ]; then
    wait -n -p done_pid "${!RUNNING[@]}"
    unset "RUNNING[$done_pid]"
    continue
  fi
  s="${pending[$pick]}"
  pending=("${pending[@]:0:$pick}" "${pending[@]:$((pick + 1))}")
  echo "=== molecule test -s $(base "$s")$([ "$(base "$s")" = "$s" ] || echo " on ansible-core $MIN_CORE (.venv-min)") (log: $LOGDIR/$s.log)"
  run_one "$s" &
  RUNNING[$!]="$(base "$s")"
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
