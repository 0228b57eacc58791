# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# PRIVATE to cubestudio.ascend: may change without notice. Verification of a Huawei package on
# the controller before it is copied: its sha256 (always) and, when a CA is given, its CMS
# signature (the .cms file Huawei ships beside each package) checked with `openssl cms -verify`
# against the CA and the CRL (the .crl file shipped beside it, or one the user gives).
#
# The caller passes `run(argv) -> (rc, stdout, stderr)`; nothing here starts a process itself.

import hashlib
import os
import re
import tempfile

SIGNATURE_SUFFIX = ".cms"
CRL_SUFFIX = ".crl"

ARGUMENT_SPEC = {
    "path": {"type": "path", "required": True},
    "sha256": {"type": "str", "required": True},
    "ca_file": {"type": "path"},
    "crl_file": {"type": "path"},
    "signature_file": {"type": "path"},
}

_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
_PEM_CERT = b"-----BEGIN CERTIFICATE-----"
_PEM_CRL = b"-----BEGIN X509 CRL-----"

# What `openssl cms -verify` (OpenSSL 1.1 and 3.x) prints, mapped to a cause and a fix. The first
# match wins: a revoked certificate is reported before the verification error it leads to.
KNOWN_ERRORS = (
    (
        re.compile(r"certificate revoked", re.IGNORECASE),
        "is signed by a revoked certificate (listed in the CRL)",
        "do not install this package: download it again from Huawei's support site, with its "
        ".cms and .crl, and check the CA and CRL you were given",
    ),
    (
        re.compile(r"CRL has expired", re.IGNORECASE),
        "cannot be trusted: the CRL has expired (its next update date has passed)",
        "download the current CRL from Huawei's support site and set ascend_package_crl_file to it",
    ),
    (
        re.compile(r"CRL is not yet valid", re.IGNORECASE),
        "cannot be trusted: the CRL is not valid yet (check the controller's clock)",
        "correct the controller's date and time, or use the CRL that belongs to this package",
    ),
    (
        re.compile(r"CRL signature failure|unable to decrypt CRL", re.IGNORECASE),
        "cannot be trusted: the CRL is not signed by the CA",
        "use the CRL that Huawei publishes with this CA (ascend_package_crl_file)",
    ),
    (
        re.compile(r"unable to get certificate CRL", re.IGNORECASE),
        "cannot be trusted: the CRL does not belong to the CA that issued the signing certificate",
        "use the CRL that Huawei publishes with this CA (ascend_package_crl_file)",
    ),
    (
        re.compile(
            r"content verify error|digest failure|signature failure|verification failure.*"
            r"(digest|signature)",
            re.IGNORECASE,
        ),
        "does not match its signature: it was altered or damaged after signing",
        "download the package again from Huawei's support site (with its .cms and .crl)",
    ),
    (
        re.compile(
            r"unable to get local issuer certificate|self[- ]signed certificate|"
            r"unable to get issuer certificate|unable to verify the first certificate",
            re.IGNORECASE,
        ),
        "is not signed by a certificate of the given CA",
        "check that ascend_package_ca_file is Huawei's CA for this package, and that the package "
        "comes from Huawei",
    ),
    (
        re.compile(r"certificate has expired", re.IGNORECASE),
        "is signed by a certificate that has expired",
        "download the current release of the package (and its .cms) from Huawei's support site",
    ),
    (
        re.compile(r"certificate is not yet valid", re.IGNORECASE),
        "is signed by a certificate that is not valid yet (check the controller's clock)",
        "correct the controller's date and time",
    ),
    (
        re.compile(
            r"Error reading|asn1|header too long|wrong tag|bad object|not enough data|"
            r"unsupported|no content type",
            re.IGNORECASE,
        ),
        "cannot be trusted: its .cms file is not a DER-encoded CMS signature",
        "download the package's .cms file again from Huawei's support site",
    ),
)


class VerifyError(Exception):
    """A package that must not be copied: `cause` completes "<package> ...", `fix` says what to do."""

    def __init__(self, cause, fix, detail=None):
        super().__init__(cause)
        self.cause = cause
        self.fix = fix
        self.detail = detail


def default_paths(path, signature_file=None, crl_file=None):
    """The signature and CRL files of a package: the given ones, else <package>.cms/.crl."""
    return (
        signature_file or path + SIGNATURE_SUFFIX,
        crl_file or path + CRL_SUFFIX,
    )


def sha256_of(path, chunk=1024 * 1024):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path, expected):
    """Raise VerifyError unless `path` exists and has the sha256 `expected`; return it."""
    if not _SHA256.match(expected or ""):
        raise VerifyError(
            "has no valid sha256 in ascend_artifact_checksums (got %r)"
            % (expected or ""),
            "add it to ascend_artifact_checksums (file name: sha256, from the checksum published "
            "with the package), see docs/artifacts.md",
        )
    if not os.path.isfile(path):
        raise VerifyError(
            "does not exist on the controller",
            "put the package there or correct ascend_artifact_local_dir",
        )
    actual = sha256_of(path)
    if actual != expected.lower():
        raise VerifyError(
            "has sha256 %s but %s is expected" % (actual, expected.lower()),
            "the file is damaged or is not the package it is named after: download it again",
        )
    return actual


def diagnose(output):
    """(cause, fix) for what openssl printed; a generic pair naming its last line otherwise."""
    for pattern, cause, fix in KNOWN_ERRORS:
        if pattern.search(output):
            return cause, fix
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    last = lines[-1] if lines else "no output"
    return (
        "was refused by openssl: %s" % last,
        "check the package, its .cms, ascend_package_ca_file and ascend_package_crl_file",
    )


def verify_command(openssl, signature_file, path, bundle):
    """The `openssl cms -verify` command line: detached DER signature, CA and CRL in `bundle`.

    `-binary` hashes the package as it is (no MIME canonicalisation), `-crl_check` makes the
    signing certificate's revocation status mandatory (the CRL is in the bundle), `-purpose any`
    accepts a code-signing certificate (openssl's default purpose is S/MIME mail signing).
    """
    return [
        openssl,
        "cms",
        "-verify",
        "-binary",
        "-inform",
        "DER",
        "-in",
        signature_file,
        "-content",
        path,
        "-CAfile",
        bundle,
        "-crl_check",
        "-purpose",
        "any",
        "-out",
        os.devnull,
    ]


def _read(path, what, fix):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise VerifyError(
            "cannot be trusted: its %s %s cannot be read (%s)"
            % (what, path, exc.strerror or exc),
            fix,
        ) from None


def crl_pem(data, run, openssl, crl_file):
    """The CRL as PEM: Huawei's .crl is DER; a PEM CRL is taken as it is."""
    if _PEM_CRL in data:
        return data
    rc, out, err = run(
        [openssl, "crl", "-inform", "DER", "-in", crl_file, "-outform", "PEM"]
    )
    out_bytes = out if isinstance(out, bytes) else (out or "").encode("utf-8")
    if rc != 0 or _PEM_CRL not in out_bytes:
        raise VerifyError(
            "cannot be trusted: the CRL %s is neither a PEM nor a DER certificate revocation list"
            % crl_file,
            "download the package's .crl again from Huawei's support site",
            detail=err
            if isinstance(err, str)
            else (err or b"").decode("utf-8", "replace"),
        )
    return out_bytes


def verify_signature(path, ca_file, run, openssl, signature_file=None, crl_file=None):
    """Verify the CMS signature of `path`; raise VerifyError with cause and fix on any doubt.

    Returns the command that ran (with the temporary bundle's path).
    """
    signature_file, crl_file = default_paths(path, signature_file, crl_file)
    ca = _read(
        ca_file,
        "CA file",
        "set ascend_package_ca_file to Huawei's CA certificate (PEM) on the controller",
    )
    if _PEM_CERT not in ca:
        raise VerifyError(
            "cannot be trusted: the CA file %s holds no PEM certificate" % ca_file,
            "convert it with `openssl x509 -inform DER -in <ca> -out <ca>.pem` and set "
            "ascend_package_ca_file to the PEM file",
        )
    if not os.path.isfile(signature_file):
        raise VerifyError(
            "has no signature: %s is missing" % signature_file,
            "put the .cms file Huawei ships with the package beside it, or unset "
            "ascend_package_ca_file to install without a signature check",
        )
    if not os.path.isfile(crl_file):
        raise VerifyError(
            "has no CRL: %s is missing" % crl_file,
            "put the .crl file Huawei ships with the package beside it, or set "
            "ascend_package_crl_file to a current CRL of the CA",
        )
    crl = crl_pem(
        _read(crl_file, "CRL", "put a readable .crl file there"), run, openssl, crl_file
    )
    handle, bundle = tempfile.mkstemp(prefix="ascend-ca-", suffix=".pem")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(ca.rstrip(b"\n") + b"\n" + crl)
        argv = verify_command(openssl, signature_file, path, bundle)
        rc, out_text, err_text = run(argv)
    finally:
        os.unlink(bundle)
    text = "%s\n%s" % (_text(out_text), _text(err_text))
    if rc != 0 or "Verification successful" not in text:
        cause, fix = diagnose(text)
        raise VerifyError(cause, fix, detail=text.strip())
    return argv


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value or ""


def verify(
    path, sha256, run, openssl=None, ca_file=None, crl_file=None, signature_file=None
):
    """Check a package on the controller; return the facts of what was checked.

    The sha256 is always checked. The signature is checked when `ca_file` is given; `openssl`
    must then be the path of the openssl binary (None: refused, it is not installed).
    """
    actual = check_sha256(path, sha256)
    result = {
        "path": path,
        "sha256": actual,
        "signature": "not checked",
        "signature_file": None,
        "crl_file": None,
        "ca_file": ca_file or None,
        "cmd": None,
    }
    if not ca_file:
        return result
    if not openssl:
        raise VerifyError(
            "cannot be checked: openssl is not installed on the controller",
            "install openssl on the controller (Debian/Ubuntu: apt-get install openssl; "
            "RHEL: dnf install openssl), or unset ascend_package_ca_file",
        )
    signature_file, crl_file = default_paths(path, signature_file, crl_file)
    result["cmd"] = verify_command(openssl, signature_file, path, "<CA file + CRL>")
    verify_signature(path, ca_file, run, openssl, signature_file, crl_file)
    result.update(
        signature="verified", signature_file=signature_file, crl_file=crl_file
    )
    return result
