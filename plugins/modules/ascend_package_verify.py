#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Documentation only: the action plugin plugins/action/ascend_package_verify.py does the work on
# the controller, with the logic in plugins/module_utils/_installers/_signature.py.

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_package_verify
short_description: Verify a Huawei Ascend package on the controller (sha256 and CMS signature) before it is copied
version_added: 0.1.0
description:
  - Checks one package file on the controller before anything is copied to a node. The sha256 is
    always checked against O(sha256); a package that does not exist or does not match is refused.
  - When O(ca_file) is given, the package's CMS signature (the C(.cms) file Huawei ships beside
    each package) is verified as well, with
    C(openssl cms -verify -binary -inform DER -in <package>.cms -content <package> -CAfile <CA + CRL> -crl_check -purpose any).
    The CRL (the C(.crl) file shipped beside the package, or O(crl_file)) is mandatory then, so a
    signing certificate that Huawei revoked is refused. A DER or PEM CRL is accepted.
  - A refusal fails the task with the cause (altered package, revoked certificate, another CA,
    expired CRL, missing C(.cms) or C(.crl), ...) and the fix, and returns them as RV(cause) and RV(fix).
  - Without O(ca_file) no signature is checked (Huawei's CA is not public in every channel); the
    sha256 stays mandatory.
  - Runs on the controller as an action plugin; nothing is sent to the target, and it needs the
    C(openssl) binary on the controller only when O(ca_file) is given.
options:
  path:
    description: Path of the package on the controller.
    type: path
    required: true
  sha256:
    description: Expected sha256 of the package, 64 hex digits (case does not matter).
    type: str
    required: true
  ca_file:
    description:
      - CA certificate(s), PEM, that the package's signing certificate must chain to (Huawei's
        software-signing CA). Empty or omitted, no signature is checked.
    type: path
  crl_file:
    description: CRL of the CA (DER or PEM). Defaults to C(<path>.crl). Only used with O(ca_file).
    type: path
  signature_file:
    description: Detached CMS signature (DER) of the package. Defaults to C(<path>.cms). Only used with O(ca_file).
    type: path
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - The action only reads, so check mode runs it normally.
  diff_mode:
    support: N/A
    details:
      - The action changes nothing.
  platform:
    platforms: all
    support: full
    details:
      - Runs on the controller whatever the target platform.
notes:
  - The layout Huawei uses is C(<package>), C(<package>.cms) and C(<package>.crl) side by side; see
    C(docs/artifacts.md) in the collection.
seealso:
  - module: cubestudio.ascend.ascend_package
author:
  - cubestudio maintainers (@cubestudio)
"""

EXAMPLES = r"""
---
- name: Verify a driver package and its signature before copying it
  cubestudio.ascend.ascend_package_verify:
    path: /srv/ascend/Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run
    sha256: "{{ ascend_artifact_checksums['Ascend-hdk-910b-npu-driver_24.1.0_linux-x86_64.run'] }}"
    ca_file: /srv/ascend/huawei-ca.pem

- name: Only the checksum (no CA given)
  cubestudio.ascend.ascend_package_verify:
    path: /srv/ascend/Ascend-cann-toolkit_8.0.0_linux-x86_64.run
    sha256: "{{ ascend_artifact_checksums['Ascend-cann-toolkit_8.0.0_linux-x86_64.run'] }}"
"""

RETURN = r"""
path:
  description: The package that was checked.
  returned: success
  type: str
sha256:
  description: Its sha256 as computed on the controller.
  returned: success
  type: str
size:
  description: Its size in bytes on the controller.
  returned: success
  type: int
  sample: 301989888
signature:
  description: V(verified) when the CMS signature was checked, V(not checked) without O(ca_file).
  returned: success
  type: str
  sample: verified
signature_file:
  description: The C(.cms) file that was checked; null when no signature was checked.
  returned: success
  type: str
crl_file:
  description: The CRL that was used; null when no signature was checked.
  returned: success
  type: str
ca_file:
  description: The CA file that was used; null when no signature was checked.
  returned: success
  type: str
cmd:
  description: The openssl command line (the CA and CRL bundle is a temporary file); null when no signature was checked.
  returned: success
  type: list
  elements: str
cause:
  description: Why the package was refused; completes the sentence C(<path> ...) of the message.
  returned: failure
  type: str
  sample: is signed by a revoked certificate (listed in the CRL)
fix:
  description: What to do about it.
  returned: failure
  type: str
openssl_output:
  description: What openssl printed, when it refused the signature.
  returned: failure
  type: str
"""
