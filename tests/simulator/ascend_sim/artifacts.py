# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``ascend-sim build-artifacts``: the simulated .run packages of the release trains.

Writes, into one directory, the packages with their real file names, ``SHA256SUMS``
(``sha256sum`` format) and ``artifacts.json`` (list of {component, chip, version, arch, file,
sha256, train}; chip and arch are null where the name has none), plus ``trains.json``. Unless
``sign`` is false, each package gets a detached CMS signature ``<file>.cms`` and the CRL
``<file>.crl`` of a test CA made for this build in ``pki/`` (see signing.py), as Huawei ships them.

With ``docker_runtime_dir`` (``--docker-runtime-dir``), the Ascend Docker Runtime packages are
Huawei's real ones that ``make docker-runtime`` built from Huawei's source
(tests/mindcluster/build_docker_runtime.sh), where that folder has the file: copied instead of
the simulated installer (``installers/docker_runtime.py``), signed and listed the same way, with
``"huawei": true`` in artifacts.json; a real package of a release no train names (26.0.0) is
added as well. Without it, or for a file it lacks, the simulated installer is built as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil

from . import catalog, dcmi, makeself, signing
from .installers import cann, docker_runtime, driver, firmware


def _meta(
    component,
    version,
    file,
    flavour,
    label,
    helpheader,
    chip=None,
    arch=None,
    train=None,
    **extra,
):
    meta = {
        "component": component,
        "version": version,
        "file": file,
        "flavour": flavour,
        "label": label,
        "helpheader": helpheader,
        "chip": chip,
        "arch": arch,
        "train": train,
        "targetdir": os.path.splitext(file)[0],
    }
    meta.update(extra)
    return meta


def plan(trains=catalog.DEFAULT_TRAINS, arches=catalog.ARCHES, chips=catalog.CHIPS):
    """Metadata of every package to build (deduplicated by file name)."""
    metas = {}
    for train in trains:
        if train not in catalog.TRAINS:
            raise ValueError(
                "unknown train %r (known: %s)" % (train, ", ".join(catalog.TRAINS))
            )
        data = catalog.TRAINS[train]
        for chip in chips:
            if chip not in catalog.CHIPS:
                raise ValueError(
                    "unknown chip %r (known: %s)" % (chip, ", ".join(catalog.CHIPS))
                )
            for arch in arches:
                name = catalog.driver_file(chip, data["hdk"], arch)
                metas.setdefault(
                    name,
                    _meta(
                        "driver",
                        data["hdk"],
                        name,
                        "hdk",
                        "ASCEND DRIVER RUN PACKAGE",
                        driver.HELP,
                        chip=chip,
                        arch=arch,
                        train=train,
                    ),
                )
            name = catalog.firmware_file(chip, data["firmware"])
            metas.setdefault(
                name,
                _meta(
                    "firmware",
                    data["firmware"],
                    name,
                    "hdk",
                    "ASCEND-HDK-%s-NPU FIRMWARE RUN PACKAGE" % catalog.chip_label(chip),
                    firmware.HELP,
                    chip=chip,
                    train=train,
                ),
            )
        for arch in arches:
            if arch not in catalog.ARCHES:
                raise ValueError(
                    "unknown arch %r (known: %s)" % (arch, ", ".join(catalog.ARCHES))
                )
            if data["cann"]:
                components = ["toolkit"]
                if catalog.CANN[data["cann"]]["nnae_nnrt"]:
                    components += ["nnae", "nnrt"]
                for component in components:
                    name = catalog.cann_file(component, data["cann"], arch)
                    metas.setdefault(
                        name,
                        _meta(
                            component,
                            data["cann"],
                            name,
                            "cann",
                            "ASCEND-CANN-%s RUN PACKAGE" % component.upper(),
                            cann.HELP,
                            arch=arch,
                            train=train,
                        ),
                    )
            if data["mindcluster"]:
                version = data["mindcluster"]
                name = catalog.docker_runtime_file(version, arch)
                metas.setdefault(
                    name,
                    _meta(
                        "docker-runtime",
                        version,
                        name,
                        "runtime",
                        "ascend-docker-runtime",
                        docker_runtime.helpheader(version),
                        arch=arch,
                        train=train,
                        generation=catalog.DOCKER_RUNTIME[version]["generation"],
                    ),
                )
    return [metas[name] for name in sorted(metas)]


def _real_docker_runtimes(folder):
    """{file: (version, arch)} of Huawei's Ascend-docker-runtime_<ver>_linux-<arch>.run in folder."""
    found = {}
    if not folder:
        return found
    for name in sorted(os.listdir(folder)):
        match = re.fullmatch(
            r"Ascend-docker-runtime_(.+)_linux-(x86_64|aarch64)\.run", name
        )
        if match and match.group(2) in catalog.ARCHES:
            found[name] = (match.group(1), match.group(2))
    return found


def _copy(source, dest):
    """Copy a package (mode 0755, as the simulated ones are written); its sha256."""
    shutil.copyfile(source, dest)
    os.chmod(dest, 0o755)
    digest = hashlib.sha256()
    with open(dest, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build(
    out_dir,
    trains=catalog.DEFAULT_TRAINS,
    arches=catalog.ARCHES,
    chips=catalog.CHIPS,
    sign=True,
    docker_runtime_dir=None,
):
    metas = plan(trains, arches, chips)
    real = _real_docker_runtimes(docker_runtime_dir)
    planned = {meta["file"] for meta in metas}
    for name, (version, arch) in sorted(real.items()):
        if name not in planned:
            metas.append(
                _meta(
                    "docker-runtime",
                    version,
                    name,
                    "runtime",
                    "ascend-docker-runtime",
                    "",
                    arch=arch,
                )
            )
    os.makedirs(out_dir, exist_ok=True)
    pki = signing.make_pki(out_dir) if sign else None
    entries = []
    for meta in metas:
        extra = {}
        if meta["component"] == "driver":
            library = dcmi.library_bytes(meta["arch"])
            if library is not None:
                extra[dcmi.PAYLOAD_NAME] = library
        huawei = meta["file"] in real
        if huawei:
            sha = _copy(
                os.path.join(docker_runtime_dir, meta["file"]),
                os.path.join(out_dir, meta["file"]),
            )
        else:
            sha = makeself.build_run(os.path.join(out_dir, meta["file"]), meta, extra)
        if pki:
            signing.sign(pki, os.path.join(out_dir, meta["file"]))
        entries.append(
            {
                "component": meta["component"],
                "chip": meta["chip"],
                "version": meta["version"],
                "arch": meta["arch"],
                "file": meta["file"],
                "sha256": sha,
                "train": meta["train"],
            }
        )
        if huawei:
            entries[-1]["huawei"] = True
    with open(os.path.join(out_dir, "SHA256SUMS"), "w", encoding="utf-8") as handle:
        for entry in entries:
            handle.write("%s  %s\n" % (entry["sha256"], entry["file"]))
    with open(os.path.join(out_dir, "artifacts.json"), "w", encoding="utf-8") as handle:
        json.dump(entries, handle, indent=2)
        handle.write("\n")
    with open(os.path.join(out_dir, "trains.json"), "w", encoding="utf-8") as handle:
        json.dump({t: catalog.TRAINS[t] for t in trains}, handle, indent=2)
        handle.write("\n")
    return entries
