#!/usr/bin/env bash
# Run molecule scenarios one after the other and report each one honestly.
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
  mapfile -t scenarios < <(find extensions/molecule -mindepth 2 -maxdepth 2 -name molecule.yml \
    -printf '%h\n' | sed 's#^extensions/molecule/##' | sort)
fi
[ "${#scenarios[@]}" -gt 0 ] || { echo "no molecule scenarios found" >&2; exit 1; }

# A broken instance file of an interrupted earlier run makes every later molecule command fail.
for s in "${scenarios[@]}"; do
  rm -rf "$HOME"/.ansible/tmp/molecule.*."$s"
done

declare -A status seconds
failed=0
for s in "${scenarios[@]}"; do
  start=$(date +%s)
  echo "=== molecule test -s $s (log: $LOGDIR/$s.log)"
  if molecule test -s "$s" >"$LOGDIR/$s.log" 2>&1 && grep -Eq "^$s +: .*successful=" "$LOGDIR/$s.log" \
      && ! grep -Eq "^$s +: .*failed=[1-9]" "$LOGDIR/$s.log"; then
    status[$s]=passed
  else
    status[$s]=FAILED
    failed=1
    echo "--- last 60 lines of $LOGDIR/$s.log"
    tail -n 60 "$LOGDIR/$s.log"
  fi
  seconds[$s]=$(( $(date +%s) - start ))
  echo "=== $s: ${status[$s]} (${seconds[$s]} s)"
done

echo
echo "molecule summary:"
for s in "${scenarios[@]}"; do
  printf '  %-28s %-7s %4s s\n' "$s" "${status[$s]}" "${seconds[$s]}"
done
exit "$failed"
