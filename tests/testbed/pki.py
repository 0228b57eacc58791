# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Certificates and kubeconfigs of the test bed, made locally (no kubeadm, no network).

One CA signs everything: the API server's serving certificate, the client certificates of
the control-plane components, of every kubelet (``system:node:<name>`` in ``system:nodes``,
as the Node authorizer wants) and of the admin, plus the service-account key pair. ECDSA P-256
keeps generation fast. Files are written once and reused; a node's certificate is added when
the node joins.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_DAYS = 3650


def _write(path, data, mode=0o600):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _key_pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _load_key(path):
    with open(path, "rb") as handle:
        return serialization.load_pem_private_key(handle.read(), password=None)


def _load_cert(path):
    with open(path, "rb") as handle:
        return x509.load_pem_x509_certificate(handle.read())


def _name(common_name, organization=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attrs)


def _builder(subject, issuer, public_key):
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
    )


class PKI:
    """The bed's certificate authority in ``<directory>`` (ca.crt/ca.key, sa.key/sa.pub, ...)."""

    def __init__(self, directory):
        self.dir = directory
        self.ca_crt = os.path.join(directory, "ca.crt")
        self.ca_key = os.path.join(directory, "ca.key")
        if not (os.path.exists(self.ca_crt) and os.path.exists(self.ca_key)):
            self._make_ca()
        self._ca_cert = _load_cert(self.ca_crt)
        self._ca_private = _load_key(self.ca_key)

    def path(self, name):
        return os.path.join(self.dir, name)

    def _make_ca(self):
        key = ec.generate_private_key(ec.SECP256R1())
        name = _name("cubestudio-testbed-ca")
        cert = (
            _builder(name, name, key.public_key())
            .add_extension(
                x509.BasicConstraints(ca=True, path_length=None), critical=True
            )
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(key, hashes.SHA256())
        )
        _write(self.ca_key, _key_pem(key))
        _write(self.ca_crt, cert.public_bytes(serialization.Encoding.PEM), 0o644)

    def issue(
        self, name, common_name, organization=None, server_names=None, client=True
    ):
        """Key and certificate ``<name>.key``/``<name>.crt``, made once; returns their paths."""
        crt, key_path = self.path(name + ".crt"), self.path(name + ".key")
        if os.path.exists(crt) and os.path.exists(key_path):
            return crt, key_path
        key = ec.generate_private_key(ec.SECP256R1())
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH] if client else []
        builder = _builder(
            _name(common_name, organization), self._ca_cert.subject, key.public_key()
        ).add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True
        )
        if server_names:
            usages.append(ExtendedKeyUsageOID.SERVER_AUTH)
            alt = []
            for entry in server_names:
                try:
                    alt.append(x509.IPAddress(ipaddress.ip_address(entry)))
                except ValueError:
                    alt.append(x509.DNSName(entry))
            builder = builder.add_extension(
                x509.SubjectAlternativeName(alt), critical=False
            )
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        cert = builder.sign(self._ca_private, hashes.SHA256())
        _write(key_path, _key_pem(key))
        _write(crt, cert.public_bytes(serialization.Encoding.PEM), 0o644)
        return crt, key_path

    def service_account_keys(self):
        key_path, pub = self.path("sa.key"), self.path("sa.pub")
        if not (os.path.exists(key_path) and os.path.exists(pub)):
            key = ec.generate_private_key(ec.SECP256R1())
            _write(key_path, _key_pem(key))
            _write(
                pub,
                key.public_key().public_bytes(
                    serialization.Encoding.PEM,
                    serialization.PublicFormat.SubjectPublicKeyInfo,
                ),
                0o644,
            )
        return key_path, pub

    def kubeconfig(self, server, user, cert_name):
        """A kubeconfig (text) with the CA and the client certificate embedded."""

        def b64(path):
            with open(path, "rb") as handle:
                return base64.b64encode(handle.read()).decode()

        return (
            "apiVersion: v1\n"
            "kind: Config\n"
            "clusters:\n"
            "- name: testbed\n"
            "  cluster:\n"
            "    server: %(server)s\n"
            "    certificate-authority-data: %(ca)s\n"
            "users:\n"
            "- name: %(user)s\n"
            "  user:\n"
            "    client-certificate-data: %(crt)s\n"
            "    client-key-data: %(key)s\n"
            "contexts:\n"
            "- name: %(user)s@testbed\n"
            "  context:\n"
            "    cluster: testbed\n"
            "    user: %(user)s\n"
            "current-context: %(user)s@testbed\n"
        ) % {
            "server": server,
            "ca": b64(self.ca_crt),
            "user": user,
            "crt": b64(self.path(cert_name + ".crt")),
            "key": b64(self.path(cert_name + ".key")),
        }
