#!/usr/bin/env bash
# `make galaxy-importer`: build the Galaxy tarball and run galaxy-importer on it as Galaxy does on
# upload (configuration: tools/galaxy-importer.cfg; .build/venv-galaxy has galaxy-importer).
# Fails on any warning or error it reports: Galaxy shows them on the collection's page.
# KNOWN_WARNINGS lists those the collection cannot fix (none today).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/.build/importer"
VENV="$ROOT/.build/venv-galaxy"
KNOWN_WARNINGS=()

rm -rf "$OUT" && mkdir -p "$OUT"
"$VENV/bin/ansible-galaxy" collection build --force --output-path "$OUT" "$ROOT" >/dev/null
tarball="$(ls "$OUT"/cubestudio-ascend-*.tar.gz)"
cd "$OUT"
rc=0
PATH="$VENV/bin:$PATH" GALAXY_IMPORTER_CONFIG="$ROOT/tools/galaxy-importer.cfg" \
  "$VENV/bin/python" -m galaxy_importer.main "$tarball" >"$OUT/importer.log" 2>&1 || rc=$?
cat "$OUT/importer.log"
if [ "$rc" -ne 0 ] || [ ! -s "$OUT/importer_result.json" ]; then
  echo "galaxy-importer failed (exit $rc)" >&2
  exit 1
fi
findings="$(grep -E '^(WARNING|ERROR|CRITICAL):' "$OUT/importer.log" || true)"
for known in "${KNOWN_WARNINGS[@]}"; do
  findings="$(grep -vF -- "$known" <<<"$findings" || true)"
done
if [ -n "$findings" ]; then
  echo "galaxy-importer reported what Galaxy would show on the collection's page:" >&2
  echo "$findings" >&2
  exit 1
fi
echo "galaxy-importer: $(basename "$tarball") imports without warnings"
