# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. The containers that hold a node's NPUs and the versions their images carry, held
# against the node's driver by the version matrix: for the doctor (rows T48, T49) and the fleet
# report (the CANN of the images on each node, the ones the matrix refuses). Pure functions;
# the rules are data/container_images.yml (validate_rules), the matrix data/version_matrix.yml.

from __future__ import annotations

import re

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._evaluation import (
    evaluate,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    matched_set,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._image_versions import (
    image_versions,
    render_tag,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._version import (
    VersionError,
    is_version,
    same_release,
)

__all__ = [
    "ImageRulesError",
    "env_problems",
    "judge",
    "validate_rules",
    "workloads",
]

_NPU_RESOURCE = re.compile(r"^huawei\.com/(Ascend[0-9A-Za-z]*|npu)$")


class ImageRulesError(ValueError):
    """data/container_images.yml does not have the documented structure."""


def validate_rules(data) -> dict:
    """data/container_images.yml, checked; the rules as read."""
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise ImageRulesError("it must be a mapping with schema: 1")
    labels = data.get("labels")
    if not isinstance(labels, dict) or not isinstance(labels.get("cann"), str):
        raise ImageRulesError("labels must map cann (and driver) to label names")
    annotations = data.get("npu_annotations")
    if not isinstance(annotations, list) or not all(
        isinstance(a, str) for a in annotations
    ):
        raise ImageRulesError("npu_annotations must be a list of annotation names")
    env = data.get("env")
    if not isinstance(env, dict):
        raise ImageRulesError("env must be a mapping")
    home = env.get("home")
    if (
        not isinstance(home, list)
        or not home
        or not all(isinstance(h, str) for h in home)
    ):
        raise ImageRulesError("env.home must be a non-empty list of variable names")
    for key, field in (("ld_library_path", "path"), ("variables", "name")):
        items = env.get(key)
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and isinstance(i.get(field), str) and i.get("why")
            for i in items
        ):
            raise ImageRulesError(
                "env.%s must be a list of {%s, why} mappings" % (key, field)
            )
    if not isinstance(env.get("default_home"), str):
        raise ImageRulesError("env.default_home must be a path")
    return data


def _holds_npus(container: dict) -> bool:
    resources = container.get("resources") or {}
    return any(
        _NPU_RESOURCE.match(str(key))
        for part in ("limits", "requests")
        for key in (resources.get(part) or {})
    )


def _spec_env(container: dict) -> dict:
    """The variables a pod's container sets with a plain value (valueFrom is not known here)."""
    return {
        e["name"]: e["value"]
        for e in container.get("env") or []
        if isinstance(e, dict) and isinstance(e.get("name"), str) and "value" in e
    }


def workloads(pods, containers, annotations=()) -> list:
    """The containers that hold the node's NPUs, each ``{where, pod, container, image, labels,
    env, env_complete, engine}``: the running pods' containers that ask for huawei.com/Ascend*
    (every container of a pod the device plugin annotated), with what the node's engine says of
    the same container (``containers``, npu_container_facts: its whole environment and its
    image's labels), then the engine's other containers that map NPUs (not those that see every
    device: privileged ones, the device plugin's own). ``pods`` None: the engine's view alone."""
    node_side = {}
    for item in containers or []:
        if isinstance(item, dict) and item.get("pod"):
            node_side[(item["pod"], item.get("name"))] = item
    found, seen = [], set()
    for pod in pods or []:
        meta = pod.get("metadata") or {}
        status = pod.get("status") or {}
        if meta.get("deletionTimestamp") or status.get("phase") != "Running":
            continue
        annotated = any(a in (meta.get("annotations") or {}) for a in annotations)
        key = "%s/%s" % (meta.get("namespace") or "default", meta.get("name"))
        for container in (pod.get("spec") or {}).get("containers") or []:
            if not (annotated or _holds_npus(container)):
                continue
            engine = node_side.get((key, container.get("name")))
            seen.add((key, container.get("name")))
            env = _spec_env(container)
            if engine:
                env = dict(env, **(engine.get("env") or {}))
            found.append(
                {
                    "where": "pod %s container %s" % (key, container.get("name")),
                    "pod": key,
                    "container": container.get("name"),
                    "image": container.get("image") or (engine or {}).get("image"),
                    "labels": (engine or {}).get("labels") or {},
                    "env": env,
                    "env_complete": engine is not None
                    and isinstance(engine.get("env"), dict),
                    "engine": (engine or {}).get("engine"),
                }
            )
    for item in containers or []:
        if not isinstance(item, dict) or item.get("all_devices"):
            continue
        if (item.get("pod"), item.get("name")) in seen or (
            pods is not None and item.get("pod")
        ):
            continue
        davinci = [
            d for d in item.get("devices") or [] if re.match(r"^/dev/davinci[0-9]+$", d)
        ]
        if not (davinci or item.get("visible_devices")):
            continue
        name = item.get("name") or item.get("id")
        found.append(
            {
                "where": "pod %s container %s" % (item["pod"], name)
                if item.get("pod")
                else "%s container %s" % (item.get("engine") or "engine", name),
                "pod": item.get("pod"),
                "container": name,
                "image": item.get("image"),
                "labels": item.get("labels") or {},
                "env": dict(item.get("env") or {}),
                "env_complete": isinstance(item.get("env"), dict),
                "engine": item.get("engine"),
            }
        )
    return found


def judge(
    workload: dict, node: dict, matrix: dict, rules=None, policy="strict"
) -> dict:
    """One container's image against its node: ``{image, versions (image_versions), verdict,
    severity, message, row, fix, refused}``. ``verdict``: ``unknown`` (no version read),
    ``unchecked`` (no driver on the node, or a release the matrix does not know), ``ok``,
    ``mismatch``. ``node``: ``{driver, firmware}`` versions (None when absent)."""
    # image_versions takes the data file's label names over its LABELS.
    versions = image_versions(
        workload.get("image"), workload.get("labels"), (rules or {}).get("labels")
    )
    answer = {
        "image": workload.get("image"),
        "versions": versions,
        "verdict": "unknown",
        "severity": "info",
        "message": "",
        "row": None,
        "fix": "",
        "refused": False,
    }
    if not versions["known"]:
        answer["message"] = "version unknown: " + versions["reason"]
        return answer
    cann, image_driver = versions["cann"], versions["driver"]
    driver, firmware = node.get("driver"), node.get("firmware")
    if not driver or not is_version(driver):
        answer.update(
            verdict="unchecked", message="the node has no driver to compare with"
        )
        return answer
    result = evaluate(
        matrix,
        {
            "driver_version": driver,
            "firmware_version": firmware or None,
            "cann_version": cann,
            "policy": policy,
        },
    )
    rules_of = {f["rule"]: f for f in result["findings"]}
    row = (result.get("recommended") or {}).get("hdk")
    answer["row"] = row
    node_text = "driver %s%s" % (
        driver,
        " / firmware %s" % firmware if firmware else "",
    )
    mismatch = rules_of.get("cann.matched")
    if "driver.known" in rules_of:
        answer.update(
            verdict="unchecked",
            message="driver %s is not a release of the version matrix" % driver,
        )
        return answer
    if "cann.known" in rules_of and not mismatch:
        answer.update(
            verdict="unchecked",
            severity="warning",
            message="CANN %s of the image is not in the version matrix (%s)"
            % (cann, node_text),
        )
        return answer
    recommended = result.get("recommended") or {}
    if mismatch:
        by_cann = matched_set(matrix, cann_version=cann)
        try:
            tag = render_tag(recommended.get("cann"), driver)
        except ValueError:
            tag = None
        fix = "use an image of CANN %s%s" % (
            recommended.get("cann"),
            " (tag %s)" % tag if tag else "",
        )
        if by_cann:
            fix += ", or run it on a node with the driver of HDK %s" % by_cann["hdk"]
        answer.update(
            verdict="mismatch",
            severity=mismatch["severity"],
            message="CANN %s of the image is not the matched set of %s: %s"
            % (cann, node_text, mismatch["message"].split(": ", 1)[-1]),
            fix=fix,
            refused=any(f["rule"] == "cann.matched" for f in result["refused"]),
        )
        return answer
    if image_driver:
        try:
            same = same_release(image_driver, driver)
        except VersionError:
            same = True
        if not same:
            answer.update(
                verdict="mismatch",
                severity="warning",
                message="image built for driver %s (its tag or label) on a node with %s; its "
                "CANN %s is the matched set of HDK %s"
                % (image_driver, node_text, cann, row),
                fix="rebuild the image with the tag of the node's versions "
                "(cubestudio.ascend.image_tag), or run it on a node with driver %s"
                % image_driver,
            )
            return answer
    answer.update(
        verdict="ok",
        severity=None,
        message="CANN %s is the matched set of %s (HDK %s)" % (cann, node_text, row),
    )
    return answer


def _paths(value) -> list:
    return [p.rstrip("/") for p in str(value or "").split(":") if p]


def env_problems(workload: dict, versions: dict, rules: dict) -> list:
    """What the container's environment lacks of what CANN needs (data/container_images.yml,
    env): ``[{what, why}]``. Only for a container whose image names a CANN version or whose
    environment names a CANN home; the variables only where the whole environment is known,
    LD_LIBRARY_PATH also where the pod sets it itself (it replaces the image's)."""
    env = workload.get("env") or {}
    spec = (rules or {}).get("env") or {}
    homes = [env.get(name) for name in spec.get("home") or [] if env.get(name)]
    if not (versions.get("known") or homes):
        return []
    complete = bool(workload.get("env_complete"))
    if not complete and "LD_LIBRARY_PATH" not in env:
        return []
    home = (homes[0] if homes else spec.get("default_home") or "").rstrip("/")
    present = _paths(env.get("LD_LIBRARY_PATH"))
    problems = [
        {
            "what": "LD_LIBRARY_PATH lacks %s" % item["path"].replace("{home}", home),
            "why": item["why"],
        }
        for item in spec.get("ld_library_path") or []
        if item["path"].replace("{home}", home).rstrip("/") not in present
    ]
    if complete:
        problems.extend(
            {"what": "%s is not set" % item["name"], "why": item["why"]}
            for item in spec.get("variables") or []
            if not env.get(item["name"])
        )
    return problems
