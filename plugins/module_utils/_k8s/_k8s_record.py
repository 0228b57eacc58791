# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kubernetes layer's record (issue 24): what a role applied and verified, and whether a
re-run has anything to do.

* Every object a role applies carries the hash of its desired form in the annotation
  SPEC_ANNOTATION (annotate); a live object whose annotation equals the desired hash is as the
  role last applied it.
* After a complete, verified run the role writes a record on the Node (annotation
  record_annotation(layer)): the hash of everything that matters (objects, labels, image,
  settings), the node's chips and health and the kubelet's engine it was verified for, and the
  smoke pod's result.
* decide() compares both with one read of the cluster (ascend_k8s_read) and the node's npu-smi:
  skip the layer (no apply, no rollout wait, no smoke pod) when nothing that matters changed and
  the live state is still good (pod ready, allocatable as expected); otherwise say why it runs.

Pure: no I/O. Python 3.8+ (module_utils).
"""

from __future__ import annotations

import hashlib
import json

from ansible_collections.cubestudio.ascend.plugins.module_utils._values import (
    int_or_none,
)

SPEC_ANNOTATION = "cubestudio.ascend/spec-hash"
SMOKE_CHOICES = ("changed", "always", "never")
_CLUSTER_SCOPED = frozenset(
    (
        "Namespace",
        "Node",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PersistentVolume",
        "StorageClass",
        "PriorityClass",
    )
)


class RecordError(ValueError):
    """Bad input (the caller reports it as a failure with this message)."""


def record_annotation(layer: str) -> str:
    """The Node annotation that holds a layer's record (cubestudio.ascend/<layer>-verified)."""
    if not layer or not all(c.isalnum() or c in "-_" for c in layer):
        raise RecordError("layer must be a plain name, got %r" % (layer,))
    return "cubestudio.ascend/%s-verified" % layer.replace("_", "-")


def digest(value) -> str:
    """sha256 (first 16 hex digits) of a JSON value in canonical form."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _without_hash(obj: dict) -> dict:
    obj = json.loads(json.dumps(obj, default=str))
    meta = obj.get("metadata") or {}
    annotations = dict(meta.get("annotations") or {})
    annotations.pop(SPEC_ANNOTATION, None)
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    obj["metadata"] = meta
    return obj


def spec_hash(obj: dict) -> str:
    """The hash of an object's desired form (its own spec-hash annotation left out)."""
    if not isinstance(obj, dict) or not obj.get("kind"):
        raise RecordError("a Kubernetes object needs a kind, got %r" % (obj,))
    return digest(_without_hash(obj))


def annotate(objects) -> list:
    """The objects, each with the hash of its desired form in SPEC_ANNOTATION."""
    if not isinstance(objects, list):
        raise RecordError("objects must be a list of Kubernetes objects")
    out = []
    for obj in objects:
        if obj is None:
            continue
        clean = _without_hash(obj)
        clean["metadata"].setdefault("annotations", {})[SPEC_ANNOTATION] = spec_hash(
            obj
        )
        out.append(clean)
    return out


def ref(obj: dict) -> dict:
    """apiVersion, kind, name and namespace (None for cluster-scoped kinds) of an object."""
    meta = obj.get("metadata") or {}
    if not obj.get("apiVersion") or not obj.get("kind") or not meta.get("name"):
        raise RecordError(
            "an object needs apiVersion, kind and metadata.name: %r" % obj
        )
    namespaced = obj["kind"] not in _CLUSTER_SCOPED
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": meta["name"],
        "namespace": (meta.get("namespace") or "default") if namespaced else None,
    }


def plural(kind: str) -> str:
    """The resource name of a kind (DaemonSet -> daemonsets, NetworkPolicy -> networkpolicies)."""
    lower = kind.lower()
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    return lower + "s"


def api_path(reference: dict) -> str:
    """The REST path of one object (GET)."""
    api_version = reference["apiVersion"]
    base = "/api/v1" if api_version == "v1" else "/apis/" + api_version
    namespace = reference.get("namespace")
    middle = "/namespaces/%s" % namespace if namespace else ""
    return "%s%s/%s/%s" % (base, middle, plural(reference["kind"]), reference["name"])


def ref_key(reference: dict) -> str:
    """kind/namespace/name, the key of an object in ascend_k8s_read's answer."""
    return "%s/%s/%s" % (
        reference["kind"],
        reference.get("namespace") or "",
        reference["name"],
    )


def trim(obj) -> dict | None:
    """What the decision needs of a live object: metadata's names, labels, annotations,
    generation, deletionTimestamp, and status without the node's image list."""
    if not isinstance(obj, dict):
        return None
    meta = obj.get("metadata") or {}
    status = dict(obj.get("status") or {})
    status.pop("images", None)
    out = {
        "kind": obj.get("kind"),
        "metadata": {
            k: meta[k]
            for k in (
                "name",
                "namespace",
                "labels",
                "annotations",
                "generation",
                "deletionTimestamp",
            )
            if k in meta
        },
        "status": status,
    }
    if obj.get("kind") == "Pod" or "nodeName" in (obj.get("spec") or {}):
        out["spec"] = {
            "nodeName": (obj.get("spec") or {}).get("nodeName"),
            "images": [
                c.get("image") for c in (obj.get("spec") or {}).get("containers") or []
            ],
        }
    return out


def rolled_out(daemonset: dict | None) -> bool:
    """kubectl rollout status of a DaemonSet, from its status."""
    if not daemonset:
        return False
    status = daemonset.get("status") or {}
    generation = (daemonset.get("metadata") or {}).get("generation") or 0
    return (
        (status.get("observedGeneration") or 0) >= generation
        and (status.get("updatedNumberScheduled") or 0)
        == (status.get("desiredNumberScheduled") or 0)
        and (status.get("numberUnavailable") or 0) == 0
    )


def pod_ready(pods) -> bool:
    """Exactly one pod (not being deleted) on the node, and its containers ready."""
    live = [
        p for p in pods or [] if not (p.get("metadata") or {}).get("deletionTimestamp")
    ]
    if len(live) != 1:
        return False
    statuses = (live[0].get("status") or {}).get("containerStatuses") or []
    return bool(statuses) and all(s.get("ready") for s in statuses)


def node_record(node: dict | None, layer: str) -> dict | None:
    """The layer's record on a live Node (None when absent or unreadable)."""
    if not node:
        return None
    text = ((node.get("metadata") or {}).get("annotations") or {}).get(
        record_annotation(layer)
    )
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def decide(params: dict) -> dict:
    """Whether the layer's apply, rollout wait and smoke pod are needed on this node.

    params:
      layer        device_plugin | exporter (the record's annotation)
      desired      the objects the role applies, annotated (annotate)
      live         {ref_key: trimmed live object or None} (ascend_k8s_read's objects)
      node         the live Node (trimmed) or None
      pods         the layer's live pods on the node
      labels       node labels the role sets ({} when it sets none)
      state        what the record must match besides the objects: the node's chips and
                   health, the engine, settings (a dict; compared as a whole)
      resource, expected_allocatable   (device plugin) allocatable that must hold now
      smoke        changed | always | never
      force        run in full whatever the record says: a reason (e.g. "asked to verify
                   (--tags verify)"), or true
    Returns {skip, reasons, smoke, record}: record is what to write after a full, verified run.
    """
    layer = params.get("layer") or ""
    smoke = params.get("smoke") or "changed"
    if smoke not in SMOKE_CHOICES:
        raise RecordError(
            "smoke must be one of %s, got %r" % (", ".join(SMOKE_CHOICES), smoke)
        )
    desired = params.get("desired") or []
    live = params.get("live") or {}
    node = params.get("node")
    labels = params.get("labels") or {}
    state = params.get("state") or {}
    hashes = {}
    for obj in desired:
        key = ref_key(ref(obj))
        hashes[key] = ((obj.get("metadata") or {}).get("annotations") or {}).get(
            SPEC_ANNOTATION
        ) or spec_hash(obj)
    record = {
        "spec": digest({"objects": hashes, "labels": labels}),
        "state": state,
    }
    reasons = []
    force = params.get("force")
    if force:
        reasons.append(force if isinstance(force, str) else "asked to verify")
    if not node:
        reasons.append("the node is not registered with the cluster")
    for key, want in sorted(hashes.items()):
        obj = live.get(key)
        if not obj:
            reasons.append("%s is missing" % key)
            continue
        have = ((obj.get("metadata") or {}).get("annotations") or {}).get(
            SPEC_ANNOTATION
        )
        if have != want:
            reasons.append("%s differs from the desired one" % key)
    if node:
        have_labels = (node.get("metadata") or {}).get("labels") or {}
        wrong = sorted(k for k, v in labels.items() if have_labels.get(k) != str(v))
        if wrong:
            reasons.append("node labels differ: " + ", ".join(wrong))
        old = node_record(node, layer)
        if old is None:
            reasons.append("no record of a verified run on the node")
        else:
            if old.get("spec") != record["spec"]:
                reasons.append("the objects or labels changed since the verified run")
            old_state = old.get("state") or {}
            for key in sorted(set(state) | set(old_state)):
                if old_state.get(key) != state.get(key):
                    reasons.append(
                        "%s changed (%s -> %s)"
                        % (key, old_state.get(key), state.get(key))
                    )
    daemonsets = [
        obj for key, obj in live.items() if key.startswith("DaemonSet/") and obj
    ]
    if daemonsets and not all(rolled_out(ds) for ds in daemonsets):
        reasons.append("the DaemonSet is not rolled out")
    if not pod_ready(params.get("pods")):
        reasons.append("no ready pod of the layer on the node")
    resource = params.get("resource")
    if resource and node:
        expected = int_or_none(params.get("expected_allocatable"))
        have = int_or_none(
            ((node.get("status") or {}).get("allocatable") or {}).get(resource)
        )
        if expected is not None and have != expected:
            reasons.append(
                "allocatable %s is %s, %s healthy chips expected"
                % (resource, have, expected)
            )
    skip = not reasons
    run_smoke = smoke == "always" or (smoke == "changed" and not skip)
    if force and smoke != "never":
        run_smoke = True
    return {"skip": skip, "reasons": reasons, "smoke": run_smoke, "record": record}


def summary(layer: str, decision: dict) -> str:
    """One line for the run's summary: the layer skipped as unchanged, or why it ran."""
    if decision.get("skip"):
        text = (
            "%s: skipped as unchanged (objects, image, chips and settings as verified)"
            % (layer)
        )
        if decision.get("smoke"):
            text += ", smoke pod run as asked"
        return text
    return "%s: applied and verified (%s)" % (
        layer,
        "; ".join(decision.get("reasons") or []) or "first run",
    )


def force_reason(layer: str, fast_rerun: bool, run_tags, verify_tags) -> str:
    """Why the layer runs in full whatever its record says ('' when nothing forces it): the fast
    re-run switched off, or a verify tag asked for on the command line (--tags verify)."""
    if not fast_rerun:
        return "%s_fast_rerun is false" % layer
    asked = [tag for tag in (verify_tags or []) if tag in (run_tags or [])]
    if asked:
        return "asked to verify (--tags %s)" % ",".join(asked)
    return ""


DECIDE_ARGUMENT_SPEC = {
    "layer": {
        "type": "str",
        "required": True,
        "choices": ["device_plugin", "exporter"],
    },
    "node_name": {"type": "str", "required": True},
    "cluster": {"type": "dict", "required": True},
    "objects": {"type": "list", "elements": "dict", "required": True},
    "state": {"type": "dict", "default": {}},
    "labels": {"type": "dict", "default": {}},
    "resource": {"type": "str"},
    "expected_allocatable": {"type": "int"},
    "smoke": {"type": "str", "default": "changed", "choices": list(SMOKE_CHOICES)},
    "smoke_test": {"type": "bool", "default": True},
    "fast_rerun": {"type": "bool", "default": True},
    "run_tags": {"type": "list", "elements": "str", "default": []},
    "verify_tags": {"type": "list", "elements": "str", "default": []},
}


def decide_layer(params: dict) -> dict:
    """decide() for one node from ascend_k8s_read's answer, with the summary line, the record's
    annotation and the Node in k8s_info's shape ({'resources': [node]}, empty when the node is
    not registered)."""
    answer = params.get("cluster")
    if not isinstance(answer, dict) or "nodes" not in answer:
        raise RecordError(
            "cluster must be the answer of ascend_k8s_read (nodes, objects, pods)"
        )
    layer = params["layer"]
    node_name = params["node_name"]
    node = (answer.get("nodes") or {}).get(node_name)
    decision = decide(
        {
            "layer": layer,
            "desired": list(params.get("objects") or []),
            "live": answer.get("objects") or {},
            "node": node,
            "pods": (answer.get("pods") or {}).get(node_name) or [],
            "labels": dict(params.get("labels") or {}),
            "state": dict(params.get("state") or {}),
            "resource": params.get("resource"),
            "expected_allocatable": params.get("expected_allocatable"),
            "smoke": params.get("smoke") if params.get("smoke_test", True) else "never",
            "force": force_reason(
                layer,
                params.get("fast_rerun", True),
                params.get("run_tags"),
                params.get("verify_tags"),
            ),
        }
    )
    decision["summary"] = summary(layer, decision)
    decision["annotation"] = record_annotation(layer)
    decision["node"] = {"resources": [node] if node else []}
    return decision
