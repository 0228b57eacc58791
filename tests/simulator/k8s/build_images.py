# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build the MindCluster image tarballs of the stand-ins (``make sim-images``).

For every MindCluster version the simulator's release trains carry (catalog.TRAINS), the
device-plugin and npu-exporter stand-ins are built with that version (tools/gobuild.sh, once
per content) and packed the way a MindCluster release ships them: one image tarball each,
``ascend-k8sdeviceplugin:v<ver>`` and ``npu-exporter:v<ver>``, for ``docker load`` or
``ctr -n k8s.io images import`` on the node (imagePullPolicy: Never). The rootfs is minimal:
the binary in /usr/local/bin, bash, sh, mkdir, chmod, chown, cat, ls (the DaemonSets run
``/bin/bash -c "device-plugin ..."`` and an init container ``sh -c "mkdir ... && chown ..."``),
the glibc files ldd names, /etc/passwd and /etc/group. An archive is rewritten only when its
inputs changed (``<file>.stamp``).

    python3 tests/simulator/k8s/build_images.py [--out .build/images/mindcluster] [--versions 7.3.0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cri"))
sys.path.insert(0, os.path.dirname(HERE))

import image_archive  # noqa: E402
from ascend_sim import catalog  # noqa: E402

BUILDINFO = "cubestudio.ascend/simk8s/internal/buildinfo.Version"
LD_LIBRARY_PATH = (
    "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/driver:"
    "/usr/local/Ascend/driver/lib64/common"
)
TOOLS = (
    "/bin/bash",
    "/bin/sh",
    "/bin/mkdir",
    "/bin/chmod",
    "/bin/chown",
    "/bin/cat",
    "/bin/ls",
)
PASSWD = "root:x:0:0:root:/root:/bin/bash\n"
GROUP = "root:x:0:\n"
# component -> image name (the names of the MindCluster release images)
IMAGES = {"device-plugin": "ascend-k8sdeviceplugin", "npu-exporter": "npu-exporter"}


def versions():
    return sorted(
        {t["mindcluster"] for t in catalog.TRAINS.values() if t["mindcluster"]},
        key=catalog.version_key,
    )


def go_build(component, version):
    out = os.path.join(ROOT, ".build", "sim-k8s", "%s-v%s" % (component, version))
    subprocess.run(
        [
            os.path.join(ROOT, "tools", "gobuild.sh"),
            "tests/simulator/k8s",
            out,
            "./cmd/" + component,
            "-ldflags",
            "-s -w -X %s=v%s" % (BUILDINFO, version),
        ],
        check=True,
    )
    return out


def sha_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def rootfs(component, binary):
    """The layer, and the host files it is made of (for the stamp)."""
    layer = image_archive.Layer()
    dest = "/usr/local/bin/" + component
    layer.add_file(binary, dest, 0o550)
    hosts = set()
    for tool in TOOLS:
        hosts.add(layer.add_host(tool))
        hosts.update(image_archive.ldd_paths(tool))
    hosts.update(image_archive.ldd_paths(binary))
    for lib in sorted(hosts):
        layer.add_host(lib)
    layer.add_bytes("/etc/passwd", PASSWD.encode())
    layer.add_bytes("/etc/group", GROUP.encode())
    for folder in ("tmp", "root"):
        layer.entries[folder] = ("dir", None, 0o1777 if folder == "tmp" else 0o700)
    return layer, sorted(hosts)


def build_image(component, version, out_dir, arch):
    binary = go_build(component, version)
    image = "%s:v%s" % (IMAGES[component], version)
    path = os.path.join(out_dir, "%s_v%s_%s.tar" % (IMAGES[component], version, arch))
    layer, hosts = rootfs(component, binary)
    config = image_archive.image_config(cmd=[component], env=[LD_LIBRARY_PATH])
    key = hashlib.sha256()
    for source in (__file__, image_archive.__file__, binary, *hosts):
        key.update(source.encode() + b"\0" + sha_file(source).encode())
    key.update(json.dumps([image, config, arch], sort_keys=True).encode())
    stamp = path + ".stamp"
    want = key.hexdigest()
    try:
        with open(stamp, encoding="ascii") as handle:
            built = handle.read().strip() == want
    except OSError:  # no stamp (yet): build
        built = False
    if built and os.path.isfile(path):
        return image, path, sha_file(path), False
    data = image_archive.build(
        layer.tar_bytes(), [image], config, image_archive.goarch(arch)
    )
    sha = image_archive.write(path, data)
    with open(stamp, "w", encoding="ascii") as handle:
        handle.write(want + "\n")
    return image, path, sha, True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument(
        "--out", default=os.path.join(ROOT, ".build", "images", "mindcluster")
    )
    parser.add_argument(
        "--versions", help="comma list (default: %s)" % ",".join(versions())
    )
    args = parser.parse_args(argv)
    arch = platform.machine()
    wanted = args.versions.split(",") if args.versions else versions()
    entries = []
    for version in wanted:
        for component in IMAGES:
            image, path, sha, built = build_image(component, version, args.out, arch)
            entries.append(
                {
                    "image": image,
                    "reference": image_archive.normalize(image),
                    "component": component,
                    "version": version,
                    "arch": arch,
                    "file": os.path.basename(path),
                    "sha256": sha,
                }
            )
            print("%-40s %s%s" % (image, path, "" if built else " (up to date)"))
    with open(os.path.join(args.out, "images.json"), "w", encoding="utf-8") as handle:
        json.dump(entries, handle, indent=2)
        handle.write("\n")
    print(
        "%d image tarballs in %s (images.json); load with `docker load -i FILE` or "
        "`ctr -n k8s.io images import FILE`" % (len(entries), args.out)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
