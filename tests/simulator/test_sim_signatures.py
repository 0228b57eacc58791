# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated packages are signed like Huawei's, and the controller-side check of the collection
(module_utils/_installers/_signature.py through the ascend_package_verify action's runner) accepts a good
package and refuses a tampered one, one signed by a revoked certificate, and one of another CA."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from ascend_sim import signing

from ansible_collections.cubestudio.ascend.plugins.action.ascend_package_verify import (
    run_command,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._signature import (
    VerifyError,
    sha256_of,
    verify,
)

NAME = "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run"
OPENSSL = shutil.which("openssl")


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def _check(path, ca_file, **kwargs):
    return verify(
        str(path),
        sha256_of(str(path)),
        run_command,
        openssl=OPENSSL,
        ca_file=ca_file,
        **kwargs,
    )


@pytest.fixture
def signed(tmp_path, packages):
    """A copy of one signed package with its .cms and .crl, and the build's CA."""
    for suffix in ("", ".cms", ".crl"):
        shutil.copyfile(packages.path(NAME) + suffix, str(tmp_path / (NAME + suffix)))
    return tmp_path / NAME, os.path.join(packages.dir, "pki", "ca.pem")


def test_every_package_is_signed_by_the_test_ca(packages):
    pki = os.path.join(packages.dir, "pki")
    bundle = _read(os.path.join(pki, "ca.pem")) + _read(os.path.join(pki, "ca.crl.pem"))
    ca_and_crl = os.path.join(pki, "bundle-for-test.pem")
    with open(ca_and_crl, "wb") as handle:
        handle.write(bundle)
    for entry in packages.entries:
        path = packages.path(entry["file"])
        result = subprocess.run(
            ["openssl", "cms", "-verify", "-binary", "-inform", "DER"]
            + ["-in", path + ".cms", "-content", path, "-CAfile", ca_and_crl]
            + ["-crl_check", "-purpose", "any", "-out", os.devnull],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, (entry["file"], result.stderr)
        assert _read(path + ".crl") == _read(os.path.join(pki, "ca.crl"))
    os.unlink(ca_and_crl)


def test_the_test_keys_are_private_and_marked_test_only(packages):
    pki = os.path.join(packages.dir, "pki")
    for key in ("ca.key", "signer.key", "revoked.key"):
        assert os.stat(os.path.join(pki, key)).st_mode & 0o077 == 0
    subject = subprocess.run(
        ["openssl", "x509", "-in", os.path.join(pki, "ca.pem"), "-noout", "-subject"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "TEST ONLY" in subject


def test_good_package_is_accepted(signed):
    path, ca = signed
    result = _check(path, ca)
    assert result["signature"] == "verified"
    assert result["signature_file"] == str(path) + ".cms"
    assert result["crl_file"] == str(path) + ".crl"


def test_tampered_package_is_refused(signed):
    path, ca = signed
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(VerifyError) as caught:
        _check(path, ca)
    assert caught.value.cause.startswith("does not match its signature")
    assert "download the package again" in caught.value.fix


def test_package_signed_by_a_revoked_certificate_is_refused(signed, packages):
    path, ca = signed
    signing.sign(os.path.join(packages.dir, "pki"), str(path), signer="revoked")
    with pytest.raises(VerifyError) as caught:
        _check(path, ca)
    assert (
        caught.value.cause == "is signed by a revoked certificate (listed in the CRL)"
    )
    assert "certificate revoked" in caught.value.detail


def test_package_of_another_ca_is_refused(signed, tmp_path):
    path, _ca = signed
    other = signing.make_pki(str(tmp_path / "other"))
    with pytest.raises(VerifyError) as caught:
        _check(path, os.path.join(other, "ca.pem"))
    # The CRL beside the package is not the other CA's: either finding refuses it.
    assert caught.value.cause in (
        "is not signed by a certificate of the given CA",
        "cannot be trusted: the CRL is not signed by the CA",
        "cannot be trusted: the CRL does not belong to the CA that issued the signing certificate",
    )


def test_missing_signature_or_crl_is_refused(signed):
    path, ca = signed
    os.unlink(str(path) + ".crl")
    with pytest.raises(VerifyError, match=r"has no CRL: .* is missing"):
        _check(path, ca)
    os.unlink(str(path) + ".cms")
    with pytest.raises(VerifyError, match=r"has no signature: .* is missing"):
        _check(path, ca)


def test_a_crl_given_separately_in_pem_is_used(signed, packages):
    path, ca = signed
    os.unlink(str(path) + ".crl")
    crl = os.path.join(packages.dir, "pki", "ca.crl.pem")
    assert _check(path, ca, crl_file=crl)["crl_file"] == crl


def test_without_a_ca_only_the_sha256_is_checked(signed):
    path, _ca = signed
    os.unlink(str(path) + ".cms")
    result = _check(path, None)
    assert result["signature"] == "not checked"
    assert result["cmd"] is None
