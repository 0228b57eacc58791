# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run one command in a pod through the CRI, the way kubelet starts containers.

Test helper of cubestudio.ascend (not shipped). Debian has no crictl; this talks to the CRI
of containerd (runtime.v1) with Debian's python3-grpcio and a few hand-encoded protobuf
messages (field numbers from k8s.io/cri-api pkg/apis/runtime/v1/api.proto).

    python3 cri_run.py [--endpoint unix:///run/containerd/containerd.sock]
                       [--runtime-handler ascend] [--image docker.io/cubestudio/workload:latest]
                       [--env ASCEND_VISIBLE_DEVICES=0 ...] [--timeout 60] -- npu-smi info

Steps: ImageStatus (the image must be local: nothing is pulled), RunPodSandbox with the given
runtime handler (host network, so that no CNI plugin is needed), CreateContainer and
StartContainer (the container sleeps), ExecSync of the command, PodSandboxStatus (verbose, to
report what containerd resolved the handler to), then StopPodSandbox and RemovePodSandbox,
also after a failure. The result is one JSON object on stdout:

    {"runtime_handler": ..., "sandbox_runtime": {"runtimeHandler", "runtimeType",
     "runtimeOptions"}, "exit_code": 0, "stdout": "...", "stderr": "...", "error": null}

The exit status is 0 when the pod ran (whatever the command's exit code, which is in the
JSON), 1 when the CRI refused something (the message is in "error"), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid

SOCKET = "unix:///run/containerd/containerd.sock"
RUNTIME = "/runtime.v1.RuntimeService/"
IMAGES = "/runtime.v1.ImageService/"
NODE = 2  # NamespaceMode NODE
CONTAINER = 1  # NamespaceMode CONTAINER
SANDBOX_READY = 0

# ---------------------------------------------------------------------------------- protobuf
VARINT, I64, LEN, I32 = 0, 1, 2, 5


def varint(value):
    """Base-128 varint of a non-negative integer (negative int64 as two's complement)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, value):
    """One field: str/bytes/encoded message (bytes via Msg) as LEN, bool/int as VARINT.

    None and empty defaults are left out, as proto3 does.
    """
    if value is None:
        return b""
    if isinstance(value, Msg):
        return varint(number << 3 | LEN) + varint(len(value.data)) + value.data
    if isinstance(value, bool):
        return varint(number << 3 | VARINT) + varint(int(value)) if value else b""
    if isinstance(value, int):
        return varint(number << 3 | VARINT) + varint(value) if value else b""
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        if not value:
            return b""
        return varint(number << 3 | LEN) + varint(len(value)) + value
    raise TypeError("cannot encode %r" % (value,))


class Msg:
    """An encoded message, built from (number, value) pairs; lists repeat the field."""

    def __init__(self, *fields):
        parts = []
        for number, value in fields:
            values = value if isinstance(value, list) else [value]
            for item in values:
                parts.append(field(number, item))
        self.data = b"".join(parts)


def string_map(number, mapping):
    """A map<string, string> field: repeated entries {key = 1, value = 2}."""
    return (number, [Msg((1, k), (2, v)) for k, v in sorted((mapping or {}).items())])


def read_varint(data, pos):
    shift = result = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def decode(data):
    """{field number: [raw values]}: ints for VARINT/I32/I64, bytes for LEN."""
    fields = {}
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, kind = key >> 3, key & 7
        if kind == VARINT:
            value, pos = read_varint(data, pos)
        elif kind == LEN:
            size, pos = read_varint(data, pos)
            value = data[pos : pos + size]
            if len(value) != size:
                raise ValueError("truncated field %d" % number)
            pos += size
        elif kind == I64:
            value = int.from_bytes(data[pos : pos + 8], "little")
            pos += 8
        elif kind == I32:
            value = int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
        else:
            raise ValueError("unsupported wire type %d" % kind)
        fields.setdefault(number, []).append(value)
    return fields


def first(fields, number, default=None):
    values = fields.get(number)
    return values[0] if values else default


def text(fields, number):
    return first(fields, number, b"").decode("utf-8", "replace")


def int32(value):
    """A VARINT read back as int32 (negative values are sign-extended to 64 bits)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def decode_map(fields, number):
    result = {}
    for entry in fields.get(number, []):
        item = decode(entry)
        result[text(item, 1)] = text(item, 2)
    return result


# ---------------------------------------------------------------------------------- CRI messages


def sandbox_config(name, uid, log_dir, cgroup_parent=""):
    """PodSandboxConfig: host network (no CNI), no resources."""
    # network NODE, pid CONTAINER, ipc POD
    namespaces = Msg((1, NODE), (2, CONTAINER), (3, 0))
    return Msg(
        (1, Msg((1, name), (2, uid), (3, "default"))),  # metadata
        # no hostname: with the host network the pod shares the node's UTS namespace
        (3, log_dir),  # log_directory
        string_map(6, {"app.kubernetes.io/managed-by": "cubestudio-cri-run"}),  # labels
        # linux: cgroup_parent, security_context.namespace_options
        (8, Msg((1, cgroup_parent), (2, Msg((1, namespaces))))),
    )


def container_config(image, envs, log_path):
    namespaces = Msg((1, NODE), (2, CONTAINER), (3, 0))
    return Msg(
        (1, Msg((1, "check"))),  # metadata
        (2, Msg((1, image))),  # image
        (3, ["sleep"]),  # command
        (4, ["600"]),  # args
        (6, [Msg((1, k), (2, v)) for k, v in envs]),  # envs
        (11, log_path),  # log_path
        # linux.security_context.namespace_options
        (15, Msg((2, Msg((3, namespaces))))),
    )


class CriError(Exception):
    pass


class Client:
    def __init__(self, endpoint, timeout):
        import grpc  # Debian python3-grpcio; imported late so that --help works without it

        self.grpc = grpc
        self.channel = grpc.insecure_channel(endpoint)
        self.timeout = timeout

    def call(self, method, request):
        stub = self.channel.unary_unary(method)
        try:
            return decode(stub(request.data, timeout=self.timeout))
        except self.grpc.RpcError as err:
            raise CriError(
                "%s: %s" % (method.rsplit("/", 1)[-1], err.details() or err)
            ) from None

    def version(self):
        reply = self.call(RUNTIME + "Version", Msg((1, "v1")))
        return {"runtime_name": text(reply, 2), "runtime_version": text(reply, 3)}

    def image_present(self, image):
        reply = self.call(IMAGES + "ImageStatus", Msg((1, Msg((1, image)))))
        return bool(first(reply, 1))

    def run_pod(self, config, handler):
        return text(
            self.call(RUNTIME + "RunPodSandbox", Msg((1, config), (2, handler))), 1
        )

    def pod_status(self, pod_id):
        reply = self.call(RUNTIME + "PodSandboxStatus", Msg((1, pod_id), (2, True)))
        status = decode(first(reply, 1, b""))
        info = decode_map(reply, 2)
        try:
            details = json.loads(info.get("info", "{}"))
        except ValueError:
            details = {}
        return {
            "state": first(status, 3, 0),
            "runtime_handler": text(status, 9),
            # The CRI field (containerd 1.6 and 2.x); 1.6 also has it in the verbose info,
            # 2.x only in info.sandboxMetadata.
            "runtimeHandler": text(status, 9) or details.get("runtimeHandler"),
            "runtimeType": details.get("runtimeType"),
            "runtimeOptions": details.get("runtimeOptions"),
        }

    def create(self, pod_id, config, pod_config):
        reply = self.call(
            RUNTIME + "CreateContainer", Msg((1, pod_id), (2, config), (3, pod_config))
        )
        return text(reply, 1)

    def start(self, container_id):
        self.call(RUNTIME + "StartContainer", Msg((1, container_id)))

    def exec_sync(self, container_id, cmd, timeout):
        reply = self.call(
            RUNTIME + "ExecSync", Msg((1, container_id), (2, list(cmd)), (3, timeout))
        )
        return {
            "exit_code": int32(first(reply, 3, 0)),
            "stdout": first(reply, 1, b"").decode("utf-8", "replace"),
            "stderr": first(reply, 2, b"").decode("utf-8", "replace"),
        }

    def remove_pod(self, pod_id):
        self.call(RUNTIME + "StopPodSandbox", Msg((1, pod_id)))
        self.call(RUNTIME + "RemovePodSandbox", Msg((1, pod_id)))


def run(args):
    result = {
        "runtime_handler": args.runtime_handler,
        "image": args.image,
        "sandbox_runtime": None,
        "exit_code": None,
        "stdout": "",
        "stderr": "",
        "error": None,
    }
    client = Client(args.endpoint, args.timeout)
    name = "cubestudio-cri-run-%d" % os.getpid()
    log_dir = "/tmp/%s" % name
    pod_id = None
    try:
        result.update(client.version())
        if not client.image_present(args.image):
            raise CriError(
                "image %s is not in containerd's k8s.io namespace (nothing is pulled)"
                % args.image
            )
        pod_config = sandbox_config(
            name, str(uuid.uuid4()), log_dir, args.cgroup_parent
        )
        pod_id = client.run_pod(pod_config, args.runtime_handler)
        status = client.pod_status(pod_id)
        result["sandbox_runtime"] = {
            key: status[key]
            for key in ("runtimeHandler", "runtimeType", "runtimeOptions")
        }
        if status["state"] != SANDBOX_READY:
            raise CriError("the pod sandbox %s is not ready" % pod_id)
        envs = [tuple(item.split("=", 1)) for item in args.env]
        container_id = client.create(
            pod_id, container_config(args.image, envs, "check.log"), pod_config
        )
        client.start(container_id)
        result.update(client.exec_sync(container_id, args.command, args.timeout))
    except CriError as err:
        result["error"] = str(err)
    finally:
        if pod_id:
            try:
                client.remove_pod(pod_id)
            except CriError as err:
                result["error"] = result["error"] or "cleanup: %s" % err
    return result


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--endpoint", default=SOCKET)
    parser.add_argument("--runtime-handler", default="")
    parser.add_argument("--image", default="docker.io/cubestudio/workload:latest")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument(
        "--cgroup-parent",
        default="",
        help="cgroup parent of the pod; a systemd slice (kubepods.slice) for runtimes with "
        "SystemdCgroup = true, as kubelet passes with cgroupDriver: systemd",
    )
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    for item in args.env:
        if "=" not in item:
            parser.error("--env needs KEY=VALUE, got %r" % item)
    return args


def main(argv):
    args = parse_args(argv)
    result = run(args)
    sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 1 if result["error"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
