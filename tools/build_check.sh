#!/usr/bin/env bash
# Build the Galaxy artifact, install it into an empty collections path and syntax-check the
# site playbook from the installed copy: proves build_ignore and the packaging are right.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/.venv/bin:$PATH"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
ansible-galaxy collection build --force --output-path "$WORK/dist" . >/dev/null
tarball="$(ls "$WORK"/dist/cubestudio-ascend-*.tar.gz)"
echo "built $(basename "$tarball") ($(du -h "$tarball" | cut -f1))"
# Nothing test-only may ship.
if tar -tzf "$tarball" | grep -E '^(tests|extensions|tools|\.[a-z_]+)/' >/dev/null; then
  echo "the artifact contains test-only content:" >&2
  tar -tzf "$tarball" | grep -E '^(tests|extensions|tools|\.[a-z_]+)/' | head >&2
  exit 1
fi
# A user's controller: no checkout ansible.cfg, only the empty collections path. Dependencies
# come from the `ansible` package in the venv (Galaxy is not reachable).
printf '[defaults]\ncollections_path = %s\n' "$WORK/collections" >"$WORK/ansible.cfg"
export ANSIBLE_CONFIG="$WORK/ansible.cfg" ANSIBLE_COLLECTIONS_PATH="$WORK/collections"
ansible-galaxy collection install --no-deps -p "$WORK/collections" "$tarball" >/dev/null
echo "installed into $WORK/collections"
cd "$WORK"
ansible-playbook cubestudio.ascend.site --syntax-check -i "$ROOT/inventory/example"
ansible-playbook cubestudio.ascend.report --syntax-check -i "$ROOT/inventory/example"
# The report's templates ship beside the playbook.
test -f "$WORK/collections/ansible_collections/cubestudio/ascend/playbooks/templates/report.html.j2"
ansible-doc -t module cubestudio.ascend.ascend_package >/dev/null
echo "build-check: the installed collection's site and report playbooks pass --syntax-check"
