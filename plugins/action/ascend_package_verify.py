# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin of cubestudio.ascend.ascend_package_verify: runs on the controller only.

Documentation: plugins/modules/ascend_package_verify.py. Logic: plugins/module_utils/_installers/_signature.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ansible.plugins.action import ActionBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._signature import (
    ARGUMENT_SPEC,
    VerifyError,
    verify,
)


def run_command(argv: list) -> tuple:
    """Run argv on the controller without a shell; (rc, stdout, stderr) as text."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
            timeout=600,
            env=dict(os.environ, LC_ALL="C"),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, "", str(exc)
    return (
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        path = params["path"]
        result["changed"] = False
        try:
            facts = verify(
                path,
                params["sha256"],
                run_command,
                openssl=shutil.which("openssl"),
                ca_file=params.get("ca_file") or None,
                crl_file=params.get("crl_file") or None,
                signature_file=params.get("signature_file") or None,
            )
        except VerifyError as exc:
            result["failed"] = True
            result["cause"] = exc.cause
            result["fix"] = exc.fix
            if exc.detail:
                result["openssl_output"] = exc.detail
            result["msg"] = (
                f"{path} {exc.cause}. Fix: {exc.fix}. Nothing was copied to the node."
            )
            return result
        result.update(facts)
        # The size, for the disk-space checks of the roles that copy the package.
        result["size"] = os.path.getsize(path)
        return result
