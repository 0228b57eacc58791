# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Image tarballs of Huawei's real device plugin and npu-exporter (``make mindcluster``).

For each MindCluster tag of Huawei's source (``$MINDCLUSTER_SRC``, default
``../shared/mindcluster`` seen from the repo root; Apache-2.0, never copied into the
collection) the two binaries are built by ``tests/mindcluster/build.sh`` with Huawei's build
flags, then packed the way each component's ``build/Dockerfile`` makes its image: the binary and
the json files its COPY lines name, at their paths, with the modes of its chmod lines, the
``HwHiAiUser`` account its ``useradd`` line creates, its ``LD_LIBRARY_PATH``. The Dockerfile's
``FROM ubuntu:22.04`` cannot be pulled here: the base is the host's bash, sh, the coreutils the
DaemonSets call, ``/sbin/ldconfig`` and ``/bin/grep`` (Huawei's library lookup falls back to
``ldconfig --print-cache | grep libdcmi.so``) and the libraries ``ldd`` names. One tarball per
image, ``ascend-k8sdeviceplugin_v<ver>_<arch>.tar`` and ``npu-exporter_v<ver>_<arch>.tar``, as a
MindCluster release zip carries them, for ``docker load`` or ``ctr -n k8s.io images import``
(imagePullPolicy: Never). An archive is rewritten only when its inputs changed (``.stamp``).

    python3 tests/mindcluster/build_images.py [--out .build/images/mindcluster] [--versions 26.1.0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cri"))

import image_archive  # noqa: E402

# The MindCluster releases whose source is in shared/mindcluster and that the tests run.
VERSIONS = ("7.3.0", "26.0.0", "26.1.0")
# component -> (image name, source folder below component/)
COMPONENTS = {
    "device-plugin": ("ascend-k8sdeviceplugin", "ascend-device-plugin"),
    "npu-exporter": ("npu-exporter", "npu-exporter"),
}
TOOLS = (
    "/bin/bash",
    "/bin/sh",
    "/bin/mkdir",
    "/bin/chmod",
    "/bin/chown",
    "/bin/cat",
    "/bin/ls",
    "/bin/grep",
    "/sbin/ldconfig",
)
PASSWD = (
    "root:x:0:0:root:/root:/usr/sbin/nologin\n"
    "HwHiAiUser:x:1000:1000::/home/HwHiAiUser:/usr/sbin/nologin\n"
)
GROUP = "root:x:0:\nHwHiAiUser:x:1000:\n"


def source_root():
    return os.environ.get("MINDCLUSTER_SRC") or os.path.normpath(
        os.path.join(ROOT, "..", "shared", "mindcluster")
    )


def component_dir(version, component):
    return os.path.join(
        source_root(), "v" + version, "component", COMPONENTS[component][1]
    )


def go_build(component, version):
    out = os.path.join(
        ROOT, ".build", "mindcluster", "bin", "%s-v%s" % (component, version)
    )
    subprocess.run(
        [os.path.join(HERE, "build.sh"), "v" + version, component, out], check=True
    )
    return out


def sha_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dockerfile(path):
    """What a MindCluster Dockerfile puts into the image: COPY (source, destination), chmod
    (mode, path), ENV LD_LIBRARY_PATH, and the accounts of useradd."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read().replace("\\\n", " ")
    copies, modes, env, users = [], {}, [], []
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "COPY":
            copies.append((words[1], words[2]))
        elif words[0] == "ENV":
            rest = line.split(None, 1)[1].strip()
            key, _sep, value = rest.partition("=" if "=" in rest.split()[0] else " ")
            env.append("%s=%s" % (key.strip(), value.strip()))
        elif words[0] == "RUN":
            for command in re.split(r"&&", line[3:]):
                args = shlex.split(command)
                if args[:1] == ["chmod"]:
                    args = [a for a in args[1:] if a != "-R"]
                    modes[os.path.normpath(args[1])] = int(args[0], 8)
                elif args[:1] == ["useradd"]:
                    users.append(args[-1])
    return copies, modes, env, users


def rootfs(component, version, binary):
    """The layer and the host files it is made of (for the stamp)."""
    build_dir = os.path.join(component_dir(version, component), "build")
    copies, modes, env, _users = dockerfile(os.path.join(build_dir, "Dockerfile"))
    layer = image_archive.Layer()
    inputs = [os.path.join(build_dir, "Dockerfile")]
    for source, dest in copies:
        name = os.path.basename(source)
        if dest.endswith("/"):
            dest = dest + name
        path = binary if name == component else os.path.join(build_dir, name)
        inputs.append(path)
        layer.add_file(path, dest, modes.get(os.path.normpath(dest), 0o440))
    for path, mode in modes.items():  # folders the Dockerfile sets modes on
        key = path.strip("/")
        if layer.entries.get(key, ("file",))[0] == "dir":
            layer.entries[key] = ("dir", None, mode)
    hosts = set()
    for tool in TOOLS:
        hosts.add(layer.add_host(tool))
        hosts.update(image_archive.ldd_paths(tool))
    hosts.update(image_archive.ldd_paths(binary))
    for lib in sorted(hosts):
        layer.add_host(lib)
    layer.add_bytes("/etc/passwd", PASSWD.encode())
    layer.add_bytes("/etc/group", GROUP.encode())
    layer.add_bytes("/etc/profile", b"umask 027\n")
    layer.entries["home"] = ("dir", None, 0o755)
    layer.entries["home/HwHiAiUser"] = (
        "dir",
        None,
        modes.get("/home/HwHiAiUser", 0o750),
    )
    layer.entries["tmp"] = ("dir", None, 0o1777)
    layer.entries["root"] = ("dir", None, 0o700)
    return layer, env, inputs + sorted(hosts)


def build_image(component, version, out_dir, arch):
    binary = go_build(component, version)
    name = COMPONENTS[component][0]
    image = "%s:v%s" % (name, version)
    path = os.path.join(out_dir, "%s_v%s_%s.tar" % (name, version, arch))
    layer, env, inputs = rootfs(component, version, binary)
    config = image_archive.image_config(cmd=[component], env=env)
    key = hashlib.sha256()
    for source in (__file__, image_archive.__file__, binary, *inputs):
        key.update(
            os.path.basename(source).encode() + b"\0" + sha_file(source).encode()
        )
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
    os.makedirs(out_dir, exist_ok=True)
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
        "--versions", help="comma list (default: %s)" % ",".join(VERSIONS)
    )
    args = parser.parse_args(argv)
    arch = platform.machine()
    wanted = args.versions.split(",") if args.versions else VERSIONS
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for version in wanted:
        for component in COMPONENTS:
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
                    "source": component_dir(version, component),
                }
            )
            print("%-40s %s%s" % (image, path, "" if built else " (up to date)"))
    with open(os.path.join(args.out, "images.json"), "w", encoding="utf-8") as handle:
        json.dump(entries, handle, indent=2)
        handle.write("\n")
    print(
        "%d image tarballs of Huawei's binaries in %s (images.json); load with "
        "`docker load -i FILE` or `ctr -n k8s.io images import FILE`"
        % (len(entries), args.out)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
