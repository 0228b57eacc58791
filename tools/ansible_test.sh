#!/usr/bin/env bash
# Run ansible-test on a copy of the collection laid out as
# <tmp>/ansible_collections/cubestudio/ascend: ansible-test resolves symlinks (so a symlinked
# tree does not work) and lists files with git when it finds a repository around the
# collection (so the copy must live outside the checkout).
# Only files git knows about (tracked, or untracked but not ignored) are copied, which is also
# what ansible-test would see in a git checkout.
#   tools/ansible_test.sh units --python 3.12 [paths...]
# CUBESTUDIO_VENV chooses the venv whose ansible-test (and ansible-core) runs: .venv (default) or
# .venv-min, the tested minimum (make sanity-min, make units-min); each venv has a copy of its own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CUBESTUDIO_VENV:-$ROOT/.venv}"
export PATH="$VENV/bin:$PATH"
KEY="$(printf '%s' "$ROOT" | sha256sum | cut -c1-10)"
SUFFIX=""
[ "$VENV" = "$ROOT/.venv" ] || SUFFIX="-$(basename "$VENV")"
BASE="${CUBESTUDIO_ANSIBLE_TEST_ROOT:-${TMPDIR:-/tmp}/cubestudio-ascend-test-$KEY$SUFFIX}"
DEST="$BASE/ansible_collections/cubestudio/ascend"
mkdir -p "$DEST"
cd "$ROOT"
git ls-files -z --cached --others --exclude-standard \
  | rsync -a --delete --from0 --files-from=- --exclude=tests/output "$ROOT/" "$DEST/"
# rsync --files-from does not delete files that left the list; prune them explicitly.
(cd "$DEST" && find . -type f ! -path './tests/output/*' -printf '%P\0') \
  | sort -z >"$BASE/.have"
git ls-files -z --cached --others --exclude-standard | sort -z >"$BASE/.want"
comm -z -23 "$BASE/.have" "$BASE/.want" | (cd "$DEST" && xargs -0 -r rm -f --)
rm -f "$BASE/.have" "$BASE/.want"
# Results land in the copy; link them back so that tools and people find them in the checkout.
mkdir -p "$DEST/tests/output"
rm -rf "$ROOT/tests/output"
ln -sfn "$DEST/tests/output" "$ROOT/tests/output"
cd "$DEST"
# Say which ansible-core runs (the tested minimum and the pinned one print the same otherwise).
echo "ansible-test of $(ansible --version 2>/dev/null | sed -n 1p) ($VENV)"
exec ansible-test "$@"
