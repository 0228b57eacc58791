#!/usr/bin/env bash
# `make test`: every check CI runs, on 2 cores within the hour.
#
# The same targets as running them one after the other, scheduled so that waiting overlaps:
#   1. setup (Debian packages, venv, collection tree, offline get-pip), alone;
#   2. the checks that need no Docker (lint, sanity, units, promtool, build-check, galaxy-importer,
#      docs-site, ee), then sanity and units on the tested minimum ansible-core (.venv-min, built
#      beside lint), then the
#      simulator tests (once the node images are built) in the foreground, while the builds run
#      beside them (node images, containerd 2.x and crictl, Kubernetes from their Go modules,
#      the device plugin and npu-exporter built from Huawei's source, in that order);
#   3. the molecule scenarios (two at a time, `site` also on the tested minimum) in the
#      foreground as soon as their builds are done, while the test bed runs beside once the rest
#      is built.
# Every step runs even when an earlier one failed, except those that need a failed build. The
# output of the steps beside the foreground goes to .build/test-logs/ and is printed whole when
# the foreground is done. The exit code is non-zero if any step failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LOGS="$ROOT/.build/test-logs"
MAKE="${MAKE:-make}"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log "$LOGS"/*.rc

declare -A RESULT SECONDS_OF
ORDER=()
total_start=$(date +%s)

# `-o setup`: setup ran first, alone; the targets below depend on it but need not repeat it.
mk() { "$MAKE" --no-print-directory -o setup "$@"; }

# run NAME CMD...: one step in the foreground, its output on ours.
run() {
  local name="$1" start rc
  shift
  echo "=== $name"
  start=$(date +%s)
  "$@"
  rc=$?
  record "$name" "$rc" "$start"
}

record() {
  local name="$1" rc="$2" start="$3"
  result "$name" "$rc" "$(($(date +%s) - start))"
  echo "=== $name: ${RESULT[$name]} (${SECONDS_OF[$name]} s)"
}

# result NAME RC SECONDS: a step's line in the summary.
result() {
  ORDER+=("$1")
  SECONDS_OF[$1]=$3
  if [ "$2" -eq 0 ]; then RESULT[$1]=passed; else RESULT[$1]=FAILED; fi
}

# not_run NAME WHY: a step that could not run counts as failed, never as passed.
not_run() {
  ORDER+=("$1")
  SECONDS_OF[$1]=0
  RESULT[$1]="FAILED (not run: $2)"
}

# beside STEP...: make targets one after the other, in the background, each into
# $LOGS/<step>.log with its exit code in $LOGS/<step>.rc; stops at the first failure.
beside() {
  (
    for step in "$@"; do
      start=$(date +%s)
      mk "$step" >"$LOGS/$step.log" 2>&1
      rc=$?
      echo "$rc $start $(date +%s)" >"$LOGS/$step.rc"
      [ "$rc" -eq 0 ] || exit "$rc"
    done
  ) &
  echo "=== beside the foreground: $* (logs: .build/test-logs/)"
}

# collect STEP...: the result of steps that ran beside (a step that never ran counts as failed).
collect() {
  local step rc start end
  for step in "$@"; do
    if [ -f "$LOGS/$step.rc" ] && read -r rc start end <"$LOGS/$step.rc"; then
      result "$step" "$rc" "$((end - start))"
    else
      not_run "$step" "an earlier step beside failed"
    fi
  done
}

show_log() {
  local step="$1"
  [ -f "$LOGS/$step.log" ] || return 0
  echo "=== output of $step (beside the foreground, ${SECONDS_OF[$step]} s: ${RESULT[$step]})"
  cat "$LOGS/$step.log"
}

run setup "$MAKE" --no-print-directory setup
if [ "${RESULT[setup]}" != passed ]; then
  echo "setup failed: nothing else can run" >&2
  exit 1
fi

# In the order the steps after them need them: molecule needs the images, containerd 2.x and
# crictl; the test bed also Kubernetes and Huawei's binaries (the longest builds, last).
BUILDS=(images containerd2 crictl k8s mindcluster)
beside "${BUILDS[@]}"
builds_pid=$!
# The tested minimum's venv (.venv-min: pip, no CPU to speak of) beside lint to ee.
beside setup-min
min_pid=$!

# wait_for STEP...: until each build step has its exit code, or the builds stopped.
wait_for() {
  local step
  for step in "$@"; do
    while [ ! -f "$LOGS/$step.rc" ] && kill -0 "$builds_pid" 2>/dev/null; do sleep 2; done
  done
}
# built STEP: the build step ended with exit code 0.
built() {
  local rc
  [ -f "$LOGS/$1.rc" ] && read -r rc _ <"$LOGS/$1.rc" && [ "$rc" -eq 0 ]
}

for step in lint sanity units promtool build-check galaxy-importer docs-site ee; do
  run "$step" mk "$step"
done
# sanity and units on the tested minimum ansible-core, once its venv is built.
wait "$min_pid"
collect setup-min
if [ "${RESULT[setup-min]}" = passed ]; then
  for step in sanity-min units-min; do
    run "$step" mk -o setup-min "$step"
  done
else
  show_log setup-min
  not_run sanity-min "the tested minimum's venv did not build"
  not_run units-min "the tested minimum's venv did not build"
fi
# The simulator tests need only the node images (the first build): they run here, while
# Kubernetes still builds, rather than beside molecule, where the test bed is the longer side.
wait_for images
if built images; then
  run simulator mk simulator
else
  not_run simulator "the images did not build"
fi

# The test bed, beside molecule, as soon as Kubernetes and Huawei's binaries are built.
(
  wait_for k8s mindcluster
  if built images && built k8s && built mindcluster; then
    start=$(date +%s)
    mk testbed >"$LOGS/testbed.log" 2>&1
    echo "$? $start $(date +%s)" >"$LOGS/testbed.rc"
  fi
) &
bed_pid=$!
echo "=== beside the foreground: testbed, once k8s and mindcluster are built (logs: .build/test-logs/)"
wait_for containerd2 crictl
if built images && built containerd2 && built crictl; then
  run molecule mk molecule
else
  not_run molecule "a build it needs failed"
fi
wait "$builds_pid"
wait "$bed_pid"
collect "${BUILDS[@]}"
for step in "${BUILDS[@]}"; do
  [ "${RESULT[$step]}" = passed ] || show_log "$step"
done
if built images && built k8s && built mindcluster; then
  collect testbed
  show_log testbed
else
  not_run testbed "a build it needs failed"
fi

echo
echo "make test summary ($(($(date +%s) - total_start)) s in all; builds beside lint to simulator, testbed beside molecule):"
failed=0
for step in "${ORDER[@]}"; do
  printf '  %-12s %-8s %5s s\n' "$step" "${RESULT[$step]}" "${SECONDS_OF[$step]}"
  [ "${RESULT[$step]}" = passed ] || failed=1
done
exit "$failed"
