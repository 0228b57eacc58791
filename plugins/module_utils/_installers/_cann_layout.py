# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The cann_toolkit role's decisions about what is installed (issue 23: Jinja formats, it does
not decide).

- ``installed_packages``: the CANN packages ``ascend_facts`` found (its ``cann`` fact may be null).
- ``layout``: which default-version links must move to the wanted version, and where the
  environment script of the wanted version is. CANN >= 8.5.0 (the new layout) keeps every package
  under ``<install_path>/cann-<version>`` with one ``<install_path>/cann`` link; before, each
  package has ``<install_path>/<product>/<version>`` and a ``<product>/latest`` link, and the
  environment script is ``<install_path>/<product>/set_env.sh`` (it reads ``latest``).
- ``driver_to_meet``: the driver the CANN about to be installed will run with.
"""

from __future__ import annotations

import posixpath


def installed_packages(cann) -> list:
    """The ``packages`` of the ``cann`` fact of ascend_facts, ``[]`` when it is null or empty."""
    if not cann:
        return []
    if not isinstance(cann, dict):
        raise ValueError("the cann fact of ascend_facts must be a dict or null")
    return list(cann.get("packages") or [])


def _wanted(packages: list, version: str) -> list:
    """The installed packages of ``version`` (compared case-insensitively, as version.info may
    spell RC versions either way)."""
    return [
        pkg
        for pkg in packages
        if isinstance(pkg.get("version"), str)
        and pkg["version"].lower() == version.lower()
    ]


def _unique(items: list) -> list:
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def layout(
    packages: list,
    version,
    kinds: list,
    wanted_kinds: list,
    new_layout: bool,
    install_path: str,
    products: dict,
) -> dict:
    """``{links, set_env}`` for the wanted ``version``.

    ``links``: ``[{path, src}]`` of every default-version link that does not point at the
    wanted version yet (``src`` relative, the version directory's name), in install order and
    without duplicates. ``kinds`` is the plan's install order, ``wanted_kinds`` the role's
    ``cann_toolkit_packages``, ``products`` the kind -> product directory map.
    """
    version = str(version)
    wanted = _wanted(packages, version)
    links = []
    if new_layout:
        for pkg in wanted:
            if pkg.get("layout") == "cann" and not pkg.get("latest"):
                links.append(
                    {
                        "path": f"{install_path}/cann",
                        "src": posixpath.basename(pkg["directory"]),
                    }
                )
        set_env = f"{install_path}/cann-{version}/set_env.sh"
    else:
        chosen = [kind for kind in kinds if kind in wanted_kinds]
        for kind in chosen:
            for pkg in wanted:
                if (
                    pkg.get("layout") == "classic"
                    and pkg.get("kind") == kind
                    and not pkg.get("latest")
                ):
                    links.append(
                        {
                            "path": f"{install_path}/{products[kind]}/latest",
                            "src": posixpath.basename(pkg["directory"]),
                        }
                    )
        if not chosen:
            raise ValueError(
                "none of the packages %s is a kind the plan installs (%s)"
                % (", ".join(wanted_kinds), ", ".join(kinds))
            )
        set_env = f"{install_path}/{products[chosen[0]]}/set_env.sh"
    return {"links": _unique(links), "set_env": set_env}


def driver_to_meet(driver, check_mode: bool, predicted_version) -> dict:
    """``{version, source}`` of the driver CANN will run with.

    In check mode the npu_driver play of the same run changed nothing, so the driver it is about
    to install (``predicted_version``, npu_driver_version) is the one CANN will meet; otherwise
    the installed one (``driver`` fact of ascend_facts, may be null; version ``""`` if none).
    """
    predicted = "" if predicted_version is None else str(predicted_version)
    if check_mode and predicted:
        return {
            "version": predicted,
            "source": "about to be installed by npu_driver (check mode)",
        }
    return {"version": (driver or {}).get("version") or "", "source": "installed"}
