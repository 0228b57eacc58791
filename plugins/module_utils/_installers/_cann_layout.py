# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The cann_toolkit role's decisions about what is installed (issue 23: Jinja formats, it does
not decide).

- ``installed_packages``: the CANN packages ``ascend_facts`` found (its ``cann`` fact may be null).
- ``layout``: which default-version links must move to the wanted version, where the
  environment script of the wanted version is, and which script login shells source. CANN >= 8.5.0 (the new layout) keeps every package
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
    """``{links, set_env, source}`` for the wanted ``version``.

    ``links``: ``[{path, src}]`` of every default-version link that does not point at the
    wanted version yet (``src`` relative, the version directory's name), in install order and
    without duplicates. ``kinds`` is the plan's install order, ``wanted_kinds`` the role's
    ``cann_toolkit_packages``, ``products`` the kind -> product directory map.
    ``set_env``: the wanted version's own script, read for the env file (right in check mode
    too, before the links move). ``source``: the script login shells source, the one Huawei
    documents, which follows the default-version link: ``<install_path>/cann/set_env.sh``
    from CANN 8.5.0 on (CANN 8.5.0 release notes, "环境变量路径"), before
    ``<install_path>/<product>/set_env.sh``.
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
        source = f"{install_path}/cann/set_env.sh"
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
        source = set_env
    return {"links": _unique(links), "set_env": set_env, "source": source}


def driver_to_meet(
    driver,
    check_mode: bool,
    predicted_version,
    compat_check: bool = True,
    steps=None,
) -> dict:
    """``{version, source, check}`` of the driver CANN will run with.

    In check mode the npu_driver play of the same run changed nothing, so the driver it is about
    to install (``predicted_version``, npu_driver_version) is the one CANN will meet; otherwise
    the installed one (``driver`` fact of ascend_facts, may be null; version ``""`` if none).
    ``check``: whether the CANN is checked against that driver: the check is on
    (``compat_check``, cann_toolkit_compat_check), the plan installs something (``steps``) and a
    driver is known.
    """
    predicted = "" if predicted_version is None else str(predicted_version)
    if check_mode and predicted:
        found = {
            "version": predicted,
            "source": "about to be installed by npu_driver (check mode)",
        }
    else:
        found = {"version": (driver or {}).get("version") or "", "source": "installed"}
    found["check"] = (
        bool(compat_check) and len(steps or []) > 0 and found["version"] != ""
    )
    return found


def env_steps(
    env_file: str,
    profile_script: str,
    set_env_exists: bool,
    check_mode: bool,
    steps=None,
) -> dict:
    """What the configure step does with CANN's environment script (set_env.sh).

    ``missing_script``: an env file or a profile script is wanted, and the script is missing
    although nothing is about to install it (a check-mode run with CANN ``steps`` planned is
    the one case where a missing script is expected): the installation is incomplete.
    ``write_env_file``: an env file for containers is wanted and the script exists (the
    script is read, then the file written);
    ``make_env_dir``: the env file's directory (whether the script exists or not);
    ``write_profile``: a login-shell script is wanted and the script exists (or check mode: the
    package the script comes from is about to be installed; the profile only names it);
    ``say_pending``: check mode on a node without the script, so the env file's content cannot be
    known yet (the task says that it will be written).
    """
    want_env = len(env_file or "") > 0
    want_profile = len(profile_script or "") > 0
    exists = bool(set_env_exists)
    check_mode = bool(check_mode)
    return {
        "missing_script": (want_env or want_profile)
        and not exists
        and not (check_mode and len(steps or []) > 0),
        "make_env_dir": want_env,
        "write_env_file": want_env and exists,
        "write_profile": want_profile and (exists or check_mode),
        "say_pending": want_env and not exists and check_mode,
    }
