# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The versions a container image carries: ONE reader of the CANN (and, where present,
# driver) version of an image reference and its labels, for the doctor, the node record of the
# fleet report and the filter image_tag (which writes the field guide's form). Pure functions,
# never an exception: what cannot be read is "version unknown" with the reason.
#
# Where a version is read, in this order (docs/container-images.md):
#   1. label        the image's labels, LABELS (cubestudio.ascend/cann-version and
#                   cubestudio.ascend/driver-version: the names of the node labels); the form the
#                   collection recommends for images built in-house
#   2. field-guide  a tag holding `cann<version>` and optionally `drv<version>` among its
#                   hyphen-separated fields, the field guide's `cann7.0.0-drv23.0.rc2-ascend`
#   3. huawei       Huawei's CANN images (github.com/Ascend/cann-container-image, published to
#                   AscendHub, quay.io/ascend/cann and Docker Hub ascendai/cann):
#                   `<cann>-<chip>-<os><os version>-py<python>[-<suffix>]`, such as
#                   `8.0.0-910b-ubuntu22.04-py3.10`, `8.1.rc1-910b-openeuler22.03-py3.10`,
#                   `9.1.0-beta.3-a3-ubuntu22.04-py3.12`, `9.0.1-910-ubuntu22.04-py3.12-devel`;
#                   and the short alias tags of an image named `cann` (`cann:8.2.rc1.alpha001`)
# A digest-only reference (name@sha256:...) has no tag and so no version from its name.

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    is_version,
)

__all__ = [
    "LABELS",
    "image_versions",
    "render_tag",
    "split_reference",
]

# The image labels this collection reads (and recommends): the node labels' names.
LABELS = {
    "cann": "cubestudio.ascend/cann-version",
    "driver": "cubestudio.ascend/driver-version",
}
# Docker's rule for a tag: 128 characters of [A-Za-z0-9_.-], not starting with . or -.
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# One version as Huawei writes it in a tag (8.0.0, 8.1.rc1, 8.2.rc1.alpha001, 24.1.rc3.7), with
# the hyphenated pre-release of the newer tags (9.1.0-beta.3).
_VERSION = r"[0-9]+\.[0-9]+\.[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*"
_HUAWEI = re.compile(
    r"^(?P<cann>" + _VERSION + r")(?P<pre>-(?:alpha|beta|rc)\.?[0-9]+)?"
    r"-(?P<chip>[0-9A-Za-z]+)"
    r"-(?P<os>[A-Za-z]+[0-9][0-9.]*(?:-?sp[0-9]+)?)"
    r"-py(?P<python>[0-9]+(?:\.[0-9]+)?)"
    r"(?:-(?P<suffix>[0-9A-Za-z._-]+))?$",
    re.IGNORECASE,
)
_ALIAS = re.compile(
    r"^(?P<cann>" + _VERSION + r")(?P<pre>-(?:alpha|beta|rc)\.?[0-9]+)?$",
    re.IGNORECASE,
)
# A field of the field guide's form: cann or drv, then a version of at least two fields.
_FIELD = re.compile(
    r"^(?P<key>cann|drv)(?P<version>[0-9]+\.[0-9A-Za-z][0-9A-Za-z.]*)$", re.IGNORECASE
)


def split_reference(image) -> tuple:
    """``registry:5000/ns/name:tag@sha256:...`` -> (``registry:5000/ns/name``, tag or None,
    digest or None); (None, None, None) for anything that is not a non-empty string."""
    if not isinstance(image, str) or not image.strip():
        return None, None, None
    text = image.strip()
    name, _sep, digest = text.partition("@")
    last = name.rsplit("/", maxsplit=1)[-1]
    tag = None
    if ":" in last:
        name, tag = name.rsplit(":", maxsplit=1)
    return name, tag or None, digest or None


def _version(text: str, pre: str | None = None) -> str | None:
    """A version of a tag in the form _version.py compares (``9.1.0-beta.3`` -> ``9.1.0.beta3``);
    None when it is not one."""
    value = text + ("." + re.sub(r"[-.]", "", pre) if pre else "")
    return value if is_version(value) else None


def _unknown(image, reason: str, **extra) -> dict:
    answer = {
        "image": image if isinstance(image, str) else None,
        "cann": None,
        "driver": None,
        "source": None,
        "chip": None,
        "os": None,
        "python": None,
        "known": False,
        "reason": reason,
    }
    answer.update(extra)
    return answer


def _from_labels(labels, keys: dict) -> dict:
    if not isinstance(labels, dict):
        return {}
    found = {}
    for what in ("cann", "driver"):
        value = labels.get(keys.get(what) or LABELS[what])
        if isinstance(value, str) and value.strip() and is_version(value.strip()):
            found[what] = value.strip()
    return found


def _from_tag(name: str | None, tag: str) -> dict:
    huawei = _HUAWEI.match(tag)
    if huawei:
        cann = _version(huawei.group("cann"), huawei.group("pre"))
        if cann:
            return {
                "cann": cann,
                "source": "huawei",
                "chip": huawei.group("chip").lower(),
                "os": huawei.group("os").lower(),
                "python": huawei.group("python"),
            }
    fields = {}
    for part in tag.split("-"):
        match = _FIELD.match(part)
        if match:
            fields.setdefault(match.group("key").lower(), match.group("version"))
    if "cann" in fields:
        cann = _version(fields["cann"].rstrip("."))
        driver = _version(fields["drv"].rstrip(".")) if "drv" in fields else None
        if cann:
            return {"cann": cann, "driver": driver, "source": "field-guide"}
    alias = _ALIAS.match(tag)
    repository = (name or "").rsplit("/", maxsplit=1)[-1].lower()
    if alias and repository == "cann":
        cann = _version(alias.group("cann"), alias.group("pre"))
        if cann:
            return {"cann": cann, "source": "huawei"}
    return {}


def image_versions(image, labels=None, label_keys=None) -> dict:
    """What an image says of its versions: ``{image, cann, driver, source, chip, os, python,
    known, reason}``. ``source`` is ``label``, ``field-guide``, ``huawei`` or None; ``known`` is
    true when a CANN version was read; ``reason`` says why not (or is empty). ``labels`` are the
    image's (or the container's, which hold the image's) labels; ``label_keys`` overrides the
    names of LABELS. Never raises."""
    keys = dict(LABELS)
    if isinstance(label_keys, dict):
        keys.update({k: v for k, v in label_keys.items() if isinstance(v, str) and v})
    name, tag, _digest = split_reference(image)
    from_labels = _from_labels(labels, keys)
    if from_labels.get("cann"):
        answer = _unknown(image, "", known=True, source="label")
        answer.update(from_labels)
        if tag and _TAG.match(tag):
            parsed = _from_tag(name, tag)
            for key in ("chip", "os", "python"):
                answer[key] = parsed.get(key)
            if not answer["driver"]:
                answer["driver"] = parsed.get("driver")
        return answer
    if name is None:
        return _unknown(image, "no image reference")
    if tag is None:
        return _unknown(
            image,
            "the reference has no tag and the image no label %s" % keys["cann"],
        )
    if not _TAG.match(tag):
        return _unknown(image, "%r is not a valid image tag" % tag)
    parsed = _from_tag(name, tag)
    if not parsed:
        return _unknown(
            image,
            "the tag %r names no CANN version (neither `cann<version>-drv<version>-...` nor "
            "`<cann>-<chip>-<os>-py<python>`) and the image has no label %s"
            % (tag, keys["cann"]),
        )
    answer = _unknown(image, "", known=True)
    answer.update(parsed)
    if from_labels.get("driver") and not answer["driver"]:
        answer["driver"] = from_labels["driver"]
    return answer


def _text(value) -> str | None:
    """A version given as a string, or as a fact's ``{version: ...}``; None when absent."""
    if isinstance(value, dict):
        value = value.get("version")
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None


def render_tag(cann, driver=None, suffix: str = "ascend") -> str:
    """The field guide's tag of a CANN (and driver) version: ``cann8.5.0-drv25.5.0-ascend``
    (lower case, as Huawei's image tags write versions). ValueError when the CANN or the driver
    is not a version, or the result is not a valid tag."""
    cann_text, driver_text = _text(cann), _text(driver)
    if cann_text is None or not is_version(cann_text):
        raise ValueError("the CANN version %r is not a version" % (cann,))
    if driver is not None and (driver_text is None or not is_version(driver_text)):
        raise ValueError("the driver version %r is not a version" % (driver,))
    parts = ["cann" + cann_text.lower()]
    if driver_text:
        parts.append("drv" + driver_text.lower())
    if suffix:
        parts.append(str(suffix))
    tag = "-".join(parts)
    if not _TAG.match(tag):
        raise ValueError(
            "%r is not a valid image tag (128 characters of A-Z a-z 0-9 _ . -)" % tag
        )
    return tag
