# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A throw-away test PKI that signs the simulated packages as Huawei ships its own.

Huawei ships each package with a detached CMS signature (``<package>.cms``, DER) and the CRL of
the signing CA (``<package>.crl``). ``make_pki`` creates, with the openssl CLI and fresh keys on
every build, in ``<out>/pki``:

* ``ca.pem`` - the test CA (what a user would give as ``ascend_package_ca_file``),
* ``signer.pem`` / ``signer.key`` - a valid code-signing certificate of that CA,
* ``revoked.pem`` / ``revoked.key`` - a certificate of that CA that the CRL revokes,
* ``ca.crl`` (DER) and ``ca.crl.pem`` - the CA's CRL, listing ``revoked.pem``.

TEST-ONLY keys: generated at build time into the build directory, never committed, and worth
nothing outside these tests. ``sign`` writes ``<package>.cms`` and ``<package>.crl``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

PKI_DIR = "pki"
SIGNERS = ("signer", "revoked")

_CONFIG = """\
[ ca ]
default_ca = test_ca
[ test_ca ]
dir = {dir}
database = $dir/index.txt
serial = $dir/serial
crlnumber = $dir/crlnumber
new_certs_dir = $dir
certificate = $dir/ca.pem
private_key = $dir/ca.key
default_md = sha256
default_days = 3650
default_crl_days = 3650
policy = anything
unique_subject = no
[ anything ]
commonName = supplied
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused
[ v3_ca ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ v3_signer ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""


def _openssl(*args, cwd=None):
    result = subprocess.run(
        ["openssl", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, LC_ALL="C"),
    )
    if result.returncode != 0:
        raise RuntimeError(
            "openssl %s failed: %s" % (" ".join(args), result.stderr.strip())
        )
    return result.stdout


def make_pki(out_dir):
    """Create the test CA, a good and a revoked signer, and the CRL; return the pki directory."""
    pki = os.path.join(out_dir, PKI_DIR)
    if os.path.isdir(pki):
        shutil.rmtree(pki)
    os.makedirs(pki, mode=0o700)
    with open(os.path.join(pki, "openssl.cnf"), "w", encoding="utf-8") as handle:
        handle.write(_CONFIG.format(dir=pki))
    with open(os.path.join(pki, "index.txt"), "w", encoding="utf-8"):
        pass
    with open(os.path.join(pki, "serial"), "w", encoding="utf-8") as handle:
        handle.write("1000\n")
    with open(os.path.join(pki, "crlnumber"), "w", encoding="utf-8") as handle:
        handle.write("01\n")
    conf = os.path.join(pki, "openssl.cnf")
    _openssl(
        "req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650",
        "-subj", "/CN=ascend-sim test package CA (TEST ONLY)",
        "-config", conf, "-extensions", "v3_ca", cwd=pki,
    )  # fmt: skip
    for name in SIGNERS:
        _openssl(
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
            "-subj", "/CN=ascend-sim %s (TEST ONLY)" % name, "-config", conf, cwd=pki,
        )  # fmt: skip
        _openssl(
            "ca", "-batch", "-config", conf, "-extensions", "v3_signer", "-notext",
            "-in", name + ".csr", "-out", name + ".pem", cwd=pki,
        )  # fmt: skip
    _openssl("ca", "-batch", "-config", conf, "-revoke", "revoked.pem", cwd=pki)
    _openssl("ca", "-batch", "-config", conf, "-gencrl", "-out", "ca.crl.pem", cwd=pki)
    _openssl("crl", "-in", "ca.crl.pem", "-outform", "DER", "-out", "ca.crl", cwd=pki)
    for key in ["ca.key"] + [name + ".key" for name in SIGNERS]:
        os.chmod(os.path.join(pki, key), 0o600)
    return pki


def sign(pki, package, signer="signer"):
    """Write <package>.cms (detached DER CMS by `signer`) and <package>.crl (the CA's CRL)."""
    if signer not in SIGNERS:
        raise ValueError("unknown signer %r (known: %s)" % (signer, ", ".join(SIGNERS)))
    _openssl(
        "cms", "-sign", "-binary", "-in", package, "-outform", "DER",
        "-out", package + ".cms", "-signer", os.path.join(pki, signer + ".pem"),
        "-inkey", os.path.join(pki, signer + ".key"), "-md", "sha256",
    )  # fmt: skip
    shutil.copyfile(os.path.join(pki, "ca.crl"), package + ".crl")
    return package + ".cms", package + ".crl"
