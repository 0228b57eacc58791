# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_signature: the sha256 check, the openssl command, and what openssl's refusals mean.

The real openssl against signed, tampered and revoked packages is exercised in
tests/simulator/test_sim_signatures.py; here openssl is a stand-in that records its command.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers import (
    _signature,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._signature import (
    VerifyError,
    check_sha256,
    diagnose,
    verify,
    verify_command,
)

CA = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
CRL_PEM = b"-----BEGIN X509 CRL-----\nMIIB\n-----END X509 CRL-----\n"
OK = "CMS Verification successful\n"


class FakeOpenssl:
    """Answers like `openssl`; keeps each command and the CA bundle it was given."""

    def __init__(self, rc=0, err=OK, crl_rc=0):
        self.rc, self.err, self.crl_rc = rc, err, crl_rc
        self.calls = []
        self.bundle = None

    def __call__(self, argv):
        self.calls.append(list(argv))
        if argv[1] == "crl":
            return self.crl_rc, CRL_PEM.decode() if self.crl_rc == 0 else "", "bad crl"
        with open(argv[argv.index("-CAfile") + 1], "rb") as handle:
            self.bundle = handle.read()
        return self.rc, "", self.err


@pytest.fixture
def package(tmp_path):
    path = tmp_path / "Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run"
    path.write_bytes(b"#!/bin/sh\nexit 0\n" * 100)
    (tmp_path / (path.name + ".cms")).write_bytes(b"\x30\x82signature")
    (tmp_path / (path.name + ".crl")).write_bytes(b"\x30\x82crl-in-der")
    ca = tmp_path / "ca.pem"
    ca.write_bytes(CA)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return str(path), sha, str(ca)


def test_sha256_is_checked_in_any_case(package):
    path, sha, _ca = package
    assert check_sha256(path, sha.upper()) == sha
    with pytest.raises(VerifyError, match=r"has sha256 .* but 0{64} is expected"):
        check_sha256(path, "0" * 64)
    with pytest.raises(VerifyError, match="has no valid sha256"):
        check_sha256(path, "")
    with pytest.raises(VerifyError, match="does not exist on the controller"):
        check_sha256(path + ".missing", sha)


def test_without_a_ca_no_signature_is_checked_and_openssl_is_not_needed(package):
    path, sha, _ca = package
    run = FakeOpenssl()
    result = verify(path, sha, run, openssl=None, ca_file=None)
    assert result == {
        "path": path,
        "sha256": sha,
        "signature": "not checked",
        "signature_file": None,
        "crl_file": None,
        "ca_file": None,
        "cmd": None,
    }
    assert run.calls == []


def test_bad_sha256_is_refused_before_the_signature(package):
    path, _sha, ca = package
    run = FakeOpenssl()
    with pytest.raises(VerifyError, match="is expected"):
        verify(path, "f" * 64, run, openssl="/usr/bin/openssl", ca_file=ca)
    assert run.calls == []


def test_good_signature_runs_openssl_cms_verify_with_ca_and_crl(package):
    path, sha, ca = package
    run = FakeOpenssl()
    result = verify(path, sha, run, openssl="/usr/bin/openssl", ca_file=ca)
    assert result["signature"] == "verified"
    assert result["signature_file"] == path + ".cms"
    assert result["crl_file"] == path + ".crl"
    # The DER CRL is converted to PEM, then the CA and the CRL go into one temporary CAfile.
    assert run.calls[0] == [
        "/usr/bin/openssl", "crl", "-inform", "DER", "-in", path + ".crl", "-outform", "PEM",
    ]  # fmt: skip
    bundle = run.calls[1][run.calls[1].index("-CAfile") + 1]
    assert run.calls[1] == verify_command(
        "/usr/bin/openssl", path + ".cms", path, bundle
    )
    assert run.bundle == CA + CRL_PEM
    assert not os.path.exists(bundle)


def test_command_is_the_detached_der_verification_with_crl_check():
    assert verify_command("openssl", "p.run.cms", "p.run", "b.pem") == [
        "openssl", "cms", "-verify", "-binary", "-inform", "DER", "-in", "p.run.cms",
        "-content", "p.run", "-CAfile", "b.pem", "-crl_check", "-purpose", "any",
        "-out", os.devnull,
    ]  # fmt: skip


def test_pem_crl_and_separate_files_are_taken_as_given(package, tmp_path):
    path, sha, ca = package
    crl = tmp_path / "huawei.crl"
    crl.write_bytes(CRL_PEM)
    sig = tmp_path / "elsewhere.cms"
    sig.write_bytes(b"\x30")
    run = FakeOpenssl()
    result = verify(
        path,
        sha,
        run,
        "openssl",
        ca_file=ca,
        crl_file=str(crl),
        signature_file=str(sig),
    )
    assert (result["crl_file"], result["signature_file"]) == (str(crl), str(sig))
    assert [call[1] for call in run.calls] == ["cms"]


@pytest.mark.parametrize(
    ("stderr", "cause"),
    [
        (
            "CMS Verification failure\n...:Verify error: certificate revoked\n",
            "is signed by a revoked certificate (listed in the CRL)",
        ),
        (
            "CMS Verification failure\n...:CMS_verify:content verify error:cms_smime.c:455:\n",
            "does not match its signature: it was altered or damaged after signing",
        ),
        (
            "Verify error:unable to get local issuer certificate\n",
            "is not signed by a certificate of the given CA",
        ),
        (
            "Verify error:CRL has expired\n",
            "cannot be trusted: the CRL has expired (its next update date has passed)",
        ),
        (
            "Verify error:unable to get certificate CRL\n",
            "cannot be trusted: the CRL does not belong to the CA that issued the signing certificate",
        ),
        (
            "Verify error:CRL signature failure\n",
            "cannot be trusted: the CRL is not signed by the CA",
        ),
        (
            "Error reading SMIME Content Info\n...:asn1 encoding routines:wrong tag\n",
            "cannot be trusted: its .cms file is not a DER-encoded CMS signature",
        ),
    ],
)
def test_refusals_name_cause_and_fix(package, stderr, cause):
    path, sha, ca = package
    with pytest.raises(VerifyError) as caught:
        verify(path, sha, FakeOpenssl(rc=4, err=stderr), "openssl", ca_file=ca)
    assert caught.value.cause == cause
    assert caught.value.fix
    assert caught.value.detail == stderr.strip()


def test_unknown_refusal_quotes_openssl():
    cause, fix = diagnose("something\nnew failure text\n")
    assert cause == "was refused by openssl: new failure text"
    assert "ascend_package_ca_file" in fix
    assert diagnose("")[0] == "was refused by openssl: no output"


def test_rc_zero_without_the_success_line_is_a_refusal(package):
    path, sha, ca = package
    with pytest.raises(VerifyError):
        verify(path, sha, FakeOpenssl(rc=0, err=""), "openssl", ca_file=ca)


@pytest.mark.parametrize("missing", [".cms", ".crl"])
def test_missing_signature_or_crl_is_refused(package, missing):
    path, sha, ca = package
    os.unlink(path + missing)
    with pytest.raises(VerifyError, match="is missing") as caught:
        verify(path, sha, FakeOpenssl(), "openssl", ca_file=ca)
    assert "ascend_package_" in caught.value.fix


def test_ca_must_be_a_readable_pem_certificate(package, tmp_path):
    path, sha, _ca = package
    der = tmp_path / "ca.der"
    der.write_bytes(b"\x30\x82\x01")
    with pytest.raises(VerifyError, match="holds no PEM certificate"):
        verify(path, sha, FakeOpenssl(), "openssl", ca_file=str(der))
    with pytest.raises(VerifyError, match="cannot be read"):
        verify(path, sha, FakeOpenssl(), "openssl", ca_file=str(tmp_path / "nope.pem"))


def test_crl_that_is_neither_pem_nor_der_is_refused(package):
    path, sha, ca = package
    with pytest.raises(VerifyError, match="neither a PEM nor a DER"):
        verify(path, sha, FakeOpenssl(crl_rc=1), "openssl", ca_file=ca)


def test_no_openssl_on_the_controller_is_refused_with_the_fix(package):
    path, sha, ca = package
    with pytest.raises(VerifyError, match="openssl is not installed") as caught:
        verify(path, sha, FakeOpenssl(), openssl=None, ca_file=ca)
    assert "apt-get install openssl" in caught.value.fix


def test_argument_spec_matches_the_module_documentation():
    assert set(_signature.ARGUMENT_SPEC) == {
        "path",
        "sha256",
        "ca_file",
        "crl_file",
        "signature_file",
    }
