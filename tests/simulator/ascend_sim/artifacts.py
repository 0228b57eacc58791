# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``ascend-sim build-artifacts``: the simulated .run packages of the release trains.

Writes, into one directory, the packages with their real file names, ``SHA256SUMS``
(``sha256sum`` format) and ``artifacts.json`` (list of {component, chip, version, arch, file,
sha256, train}; chip and arch are null where the name has none), plus ``trains.json``. Unless
``sign`` is false, each package gets a detached CMS signature ``<file>.cms`` and the CRL
``<file>.crl`` of a test CA made for this build in ``pki/`` (see signing.py), as Huawei ships them.
"""

from __future__ import annotations

import json
import os

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


def build(
    out_dir,
    trains=catalog.DEFAULT_TRAINS,
    arches=catalog.ARCHES,
    chips=catalog.CHIPS,
    sign=True,
):
    metas = plan(trains, arches, chips)
    os.makedirs(out_dir, exist_ok=True)
    pki = signing.make_pki(out_dir) if sign else None
    entries = []
    for meta in metas:
        extra = {}
        if meta["component"] == "driver":
            library = dcmi.library_bytes(meta["arch"])
            if library is not None:
                extra[dcmi.PAYLOAD_NAME] = library
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
