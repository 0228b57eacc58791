#!/bin/sh
# Checksum snapshot of everything the collection may touch on a node, one line per path:
#   <sha256 or -> <mode> <uid>:<gid> <type> <path>[ -> <link target>]
# Sorted, so two snapshots compare line by line (diff, or set difference in a test). Paths that
# do not exist are left out; directories are walked (files and links, no directory lines, so
# an empty directory created and left behind is not a change of content). Extra paths may be
# given as arguments. Read-only. Used by the faults scenario (before and after each case).
set -u
PATHS="/etc/docker /etc/containerd /etc/crio /etc/ascend-docker-runtime.d /usr/local/Ascend
/usr/local/dcmi /etc/ascend_install.info /var/log/ascend_seclog /var/log/ascend-docker-runtime
/etc/profile.d /usr/local/sbin/npu-smi /usr/local/bin/npu-smi /etc/udev/rules.d
/etc/systemd/system /etc/passwd /etc/group /etc/shadow /etc/gshadow /home /var/cache/ascend
/run/cubestudio-ascend /etc/modprobe.d /etc/ld.so.conf.d"
for p in $PATHS "$@"; do
  [ -e "$p" ] || [ -L "$p" ] || continue
  find "$p" \( -type f -o -type l \) -print 2>/dev/null
done | sort -u | while IFS= read -r f; do
  if [ -L "$f" ]; then
    printf '%s %s link %s -> %s\n' - "$(stat -c '%a %u:%g' "$f")" "$f" "$(readlink "$f")"
  else
    printf '%s %s file %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$(stat -c '%a %u:%g' "$f")" "$f"
  fi
done
# The device nodes: their owner and mode (the role may change them).
for d in /dev/davinci* /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc; do
  [ -e "$d" ] && printf '%s %s dev %s\n' - "$(stat -c '%a %u:%g' "$d")" "$d"
done
exit 0
