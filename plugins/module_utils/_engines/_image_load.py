# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The decisions of cubestudio.ascend.container_image_load: which engine, which full
# image reference, and the commands that look for, load and remove an image.

from __future__ import annotations

ENGINES = ("containerd", "docker")


class ImageLoadError(Exception):
    """Input that names no engine or no image; the message names the cause and the fix."""


def engine_kind(text: str) -> str:
    """containerd or docker, from a name or a Node's containerRuntimeVersion (containerd://1.6.20)."""
    kind = (text or "").strip().lower().split("://", 1)[0]
    if kind in ENGINES:
        return kind
    raise ImageLoadError(
        "the container engine %r is not one an image tarball can be loaded into (%s); "
        "a Node's status.nodeInfo.containerRuntimeVersion such as containerd://1.7.0 also works"
        % (text, ", ".join(ENGINES))
    )


def full_reference(image: str) -> str:
    """The reference as containerd stores it: docker.io/library/ in front of short names."""
    image = (image or "").strip()
    if not image or " " in image:
        raise ImageLoadError("%r is not an image reference (name:tag)" % image)
    first, sep, rest = image.partition("/")
    if not sep:
        return "docker.io/library/" + image
    if "." in first or ":" in first or first == "localhost":
        return image
    return "docker.io/" + first + "/" + rest


def present_command(engine: str, image: str, namespace: str) -> list:
    if engine == "containerd":
        return [
            "ctr",
            "-n",
            namespace,
            "images",
            "ls",
            "-q",
            "name==" + full_reference(image),
        ]
    return ["docker", "image", "inspect", "--format", "{{.Id}}", image]


def is_present(engine: str, rc: int, stdout: str) -> bool:
    if engine == "containerd":
        return rc == 0 and bool(stdout.strip())
    return rc == 0


def load_command(engine: str, path: str, namespace: str) -> list:
    if engine == "containerd":
        return ["ctr", "-n", namespace, "images", "import", path]
    return ["docker", "load", "-i", path]


def remove_command(engine: str, image: str, namespace: str) -> list:
    """The command that removes the image: by its full reference for containerd, which stores
    it so (ctr images rm of a short name finds nothing and still exits 0)."""
    if engine == "containerd":
        return ["ctr", "-n", namespace, "images", "rm", full_reference(image)]
    return ["docker", "image", "rm", image]


def digest_command(engine: str, image: str, namespace: str) -> list:
    """The command whose output names the digest the engine holds for the image: containerd's
    image target (the manifest or index digest of the archive's index.json), Docker's image ID
    (the config digest; the manifest digest with Docker's containerd image store)."""
    if engine == "containerd":
        return [
            "ctr",
            "-n",
            namespace,
            "images",
            "ls",
            "name==" + full_reference(image),
        ]
    return present_command(engine, image, namespace)


def engine_digest(engine: str, image: str, rc: int, stdout: str):
    """The digest of digest_command's output; None when the engine does not have the image."""
    if rc != 0:
        return None
    if engine == "containerd":
        reference = full_reference(image)
        for line in stdout.splitlines():
            fields = line.split()
            if (
                len(fields) >= 3
                and fields[0] == reference
                and fields[2].startswith("sha256:")
            ):
                return fields[2]
        return None
    text = stdout.strip()
    return text if text.startswith("sha256:") else None


def digest_matches(found, wanted) -> bool:
    """The engine's digest is one of the archive's (any, when the archive named none)."""
    if found is None:
        return False
    return not wanted or found in wanted


def archive_digests(index: dict | None, manifest: list | None) -> list:
    """The digests an image archive names: the targets of its index.json (OCI layout, what
    containerd keeps as the image's digest) and the config of its manifest.json (docker save,
    Docker's image ID)."""
    out = []
    for entry in (index or {}).get("manifests") or []:
        digest = entry.get("digest") if isinstance(entry, dict) else None
        if isinstance(digest, str) and digest.startswith("sha256:"):
            out.append(digest)
    for entry in manifest or []:
        config = entry.get("Config") if isinstance(entry, dict) else None
        if isinstance(config, str) and config:
            name = config.rsplit("/", 1)[-1]
            if name.endswith(".json"):
                name = name[: -len(".json")]
            out.append(name if name.startswith("sha256:") else "sha256:" + name)
    return out
