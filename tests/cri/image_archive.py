# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a container image archive that `docker load` and `ctr images import` both read.

Test helper of cubestudio.ascend (not shipped), standard library only. The image has one
uncompressed layer made of files from the host (a directory, single files, the shared
libraries `ldd` names for a binary) or of a ready rootfs tarball; its config sets the
entrypoint, command, environment and working folder. The archive holds the layout of
`docker save` (manifest.json, repositories) and the OCI image layout (oci-layout, index.json)
over the same blobs/sha256/ files, like Docker 25 writes it: Docker 20.10 reads
manifest.json, containerd 1.6 and 2.x read index.json. Same inputs, same bytes.

    python3 image_archive.py -o pause.tar --tag registry.k8s.io/pause:3.10 \\
        --file /usr/local/bin/pause=/pause --ldd /pause --entrypoint /pause
    python3 image_archive.py -o dp.tar --tag ascend-k8sdeviceplugin:v7.3.0 \\
        --file .build/sim-k8s/device-plugin-v7.3.0=/usr/local/bin/device-plugin:0550 \\
        --ldd /usr/local/bin/device-plugin --host /usr/bin/bash --env LD_LIBRARY_PATH=/x --cmd device-plugin

Options (repeatable where it makes sense):
  --tag NAME            image name (docker style: "name:tag" means docker.io/library/name:tag)
  --dir SRC[=DEST]      a host folder, put at DEST (default /)
  --file SRC=DEST[:MODE]  a host file at DEST (mode octal, default: the file's)
  --host PATH           a host file at the same path, with the symlinks on its way
  --ldd PATH            the libraries `ldd` names for PATH (an image path added before), as --host
  --text DEST=CONTENT[:MODE]  a small file with this content
  --rootfs-tar FILE     use this tar as the layer (no other content options)
  --entrypoint WORDS / --cmd WORDS (split on blanks) / --env K=V / --workdir DIR / --arch A
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import platform
import re
import stat
import subprocess
import sys
import tarfile
import tempfile

FIXED_MTIME = 1767225600  # 2026-01-01T00:00:00Z
LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar"
CONFIG_TYPE = "application/vnd.oci.image.config.v1+json"
MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
INDEX_TYPE = "application/vnd.oci.image.index.v1+json"
DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
GOARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def goarch(machine=None):
    machine = machine or platform.machine()
    return GOARCH.get(machine, machine)


def normalize(name):
    """Docker-style reference -> full name: "pause:3.10" -> "docker.io/library/pause:3.10"."""
    first, _sep, rest = name.partition("/")
    if not rest:
        name = "docker.io/library/" + name
    elif "." not in first and ":" not in first and first != "localhost":
        name = "docker.io/" + name
    if ":" not in name.rsplit("/", 1)[-1] and "@" not in name:
        name += ":latest"
    return name


class Layer:
    """The files of the layer: {image path: (kind, data, mode)}; kinds file, dir, link."""

    def __init__(self):
        self.entries = {}

    def _parents(self, path):
        parts = path.strip("/").split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            self.entries.setdefault("/".join(parts[:depth]), ("dir", None, 0o755))

    def add_bytes(self, dest, data, mode=0o644):
        dest = dest.strip("/")
        self._parents(dest)
        self.entries[dest] = ("file", data, mode)

    def add_file(self, source, dest, mode=None):
        with open(source, "rb") as handle:
            data = handle.read()
        self.add_bytes(
            dest, data, stat.S_IMODE(os.stat(source).st_mode) if mode is None else mode
        )

    def add_link(self, dest, target):
        dest = dest.strip("/")
        self._parents(dest)
        self.entries[dest] = ("link", target, 0o777)

    def add_dir(self, source, dest="/"):
        for dirpath, dirnames, filenames in os.walk(source):
            dirnames.sort()
            rel = os.path.relpath(dirpath, source)
            base = os.path.normpath(os.path.join(dest, rel)).strip("/")
            if base:
                self._parents(base + "/x")
                mode = stat.S_IMODE(os.stat(dirpath).st_mode)
                self.entries[base] = ("dir", None, mode)
            for name in sorted(filenames) + [
                d for d in dirnames if os.path.islink(os.path.join(dirpath, d))
            ]:
                full = os.path.join(dirpath, name)
                target = os.path.join(base, name)
                if os.path.islink(full):
                    self.add_link(target, os.readlink(full))
                else:
                    self.add_file(full, target)

    def add_host(self, path):
        """A host file at its own path, with every symlink met on the way (e.g. /lib -> usr/lib)."""
        path = os.path.normpath(path)
        done = ""
        parts = path.strip("/").split("/")
        for index, part in enumerate(parts):
            current = done + "/" + part
            if os.path.islink(current):
                target = os.readlink(current)
                self.add_link(current, target)
                resolved = os.path.normpath(
                    os.path.join(os.path.dirname(current), target)
                )
                rest = "/".join(parts[index + 1 :])
                return self.add_host(resolved + ("/" + rest if rest else ""))
            done = current
        self.add_file(path, path)
        return path

    def tar_bytes(self):
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as archive:
            for name in sorted(self.entries):
                kind, data, mode = self.entries[name]
                info = tarfile.TarInfo(name)
                info.mtime = FIXED_MTIME
                info.mode = mode
                info.uid = info.gid = 0
                info.uname = info.gname = "root"
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                    archive.addfile(info)
                elif kind == "link":
                    info.type = tarfile.SYMTYPE
                    info.linkname = data
                    archive.addfile(info)
                else:
                    info.size = len(data)
                    archive.addfile(info, io.BytesIO(data))
        return raw.getvalue()


LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


def ldd_paths(binary):
    """The library paths `ldd` prints for a host binary (the loader included)."""
    out = subprocess.run(
        ["ldd", binary], capture_output=True, text=True, check=False
    ).stdout
    return sorted({match.group(1) for match in LDD_LINE.finditer(out)})


def _json(data):
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest(), raw


def build(layer_bytes, tags, config, arch=None):
    """The archive (bytes) of one image with the layer and config, named by every tag."""
    arch = arch or goarch()
    layer_sha = hashlib.sha256(layer_bytes).hexdigest()
    image_config = {
        "architecture": arch,
        "os": "linux",
        "config": config,
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_sha]},
        "history": [
            {
                "created": "2026-01-01T00:00:00Z",
                "created_by": "cubestudio image_archive.py",
            }
        ],
        "created": "2026-01-01T00:00:00Z",
    }
    config_sha, config_raw = _json(image_config)
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "config": {
            "mediaType": CONFIG_TYPE,
            "digest": "sha256:" + config_sha,
            "size": len(config_raw),
        },
        "layers": [
            {
                "mediaType": LAYER_TYPE,
                "digest": "sha256:" + layer_sha,
                "size": len(layer_bytes),
            }
        ],
    }
    manifest_sha, manifest_raw = _json(manifest)
    full = [normalize(tag) for tag in tags]
    index = {
        "schemaVersion": 2,
        "mediaType": INDEX_TYPE,
        "manifests": [
            {
                "mediaType": MANIFEST_TYPE,
                "digest": "sha256:" + manifest_sha,
                "size": len(manifest_raw),
                "platform": {"architecture": arch, "os": "linux"},
                "annotations": {
                    "io.containerd.image.name": name,
                    "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1],
                },
            }
            for name in full
        ],
    }
    docker_manifest = [
        {
            "Config": "blobs/sha256/" + config_sha,
            "RepoTags": [name.replace("docker.io/library/", "", 1) for name in full],
            "Layers": ["blobs/sha256/" + layer_sha],
        }
    ]
    repositories = {}
    for name in docker_manifest[0]["RepoTags"]:
        repo, tag = name.rsplit(":", 1)
        repositories.setdefault(repo, {})[tag] = layer_sha
    files = [
        ("blobs/sha256/" + config_sha, config_raw),
        ("blobs/sha256/" + layer_sha, layer_bytes),
        ("blobs/sha256/" + manifest_sha, manifest_raw),
        ("index.json", json.dumps(index, sort_keys=True).encode()),
        ("manifest.json", json.dumps(docker_manifest, sort_keys=True).encode()),
        ("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'),
        ("repositories", json.dumps(repositories, sort_keys=True).encode()),
    ]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name in ("blobs", "blobs/sha256"):
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, FIXED_MTIME
            archive.addfile(info)
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, FIXED_MTIME
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def image_config(entrypoint=None, cmd=None, env=(), workdir=None):
    keys = [item.split("=", 1)[0] for item in env]
    config = {"Env": ([] if "PATH" in keys else [DEFAULT_PATH]) + list(env)}
    if entrypoint:
        config["Entrypoint"] = list(entrypoint)
    if cmd:
        config["Cmd"] = list(cmd)
    if workdir:
        config["WorkingDir"] = workdir
    return config


def write(path, data):
    """Write atomically; returns the sha256 of the archive."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=directory, prefix=".image.")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return hashlib.sha256(data).hexdigest()


def _split_mode(text):
    if re.search(r":[0-7]{3,4}$", text):
        text, mode = text.rsplit(":", 1)
        return text, int(mode, 8)
    return text, None


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--tag", action="append", required=True)
    parser.add_argument("--dir", action="append", default=[])
    parser.add_argument("--file", action="append", default=[])
    parser.add_argument("--host", action="append", default=[])
    parser.add_argument("--ldd", action="append", default=[])
    parser.add_argument("--text", action="append", default=[])
    parser.add_argument("--rootfs-tar")
    parser.add_argument("--entrypoint")
    parser.add_argument("--cmd")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--workdir")
    parser.add_argument("--arch")
    return parser.parse_args(argv)


def layer_from_args(args):
    if args.rootfs_tar:
        with open(args.rootfs_tar, "rb") as handle:
            return handle.read()
    layer = Layer()
    sources = {}
    for item in args.dir:
        source, _sep, dest = item.partition("=")
        layer.add_dir(source, dest or "/")
    for item in args.file:
        source, _sep, rest = item.partition("=")
        dest, mode = _split_mode(rest)
        layer.add_file(source, dest, mode)
        sources[dest.strip("/")] = source
    for item in args.text:
        dest, _sep, rest = item.partition("=")
        content, mode = _split_mode(rest)
        layer.add_bytes(
            dest, content.encode().decode("unicode_escape").encode(), mode or 0o644
        )
    for path in args.host:
        layer.add_host(path)
        sources[path.strip("/")] = path
    for path in args.ldd:
        host = sources.get(path.strip("/"))
        if host is None:
            raise SystemExit(
                "image_archive: --ldd %s: add the file first (--file or --host)" % path
            )
        for lib in ldd_paths(host):
            layer.add_host(lib)
    return layer.tar_bytes()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.rootfs_tar and (
        args.dir or args.file or args.host or args.ldd or args.text
    ):
        raise SystemExit(
            "image_archive: --rootfs-tar cannot be combined with other content"
        )
    config = image_config(
        args.entrypoint.split() if args.entrypoint else None,
        args.cmd.split() if args.cmd else None,
        args.env,
        args.workdir,
    )
    data = build(layer_from_args(args), args.tag, config, args.arch)
    sha = write(args.output, data)
    print("%s  %s (%s)" % (sha, args.output, ", ".join(normalize(t) for t in args.tag)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
