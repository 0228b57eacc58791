"""Plain test manifests of Huawei's device plugin for the test bed (not the roles' templates).

The device plugin's DaemonSet follows Huawei's published manifest for 910 on containerd
(../shared/ascend/manifests/device-plugin-v7.0.RC1-ascendplugin-910.yaml): its ServiceAccount
and ClusterRole, NODE_NAME from the downward API, the kubelet's device-plugin folder, the driver
folder read-only, the log folder, a read-only root, requests == limits. The tests take one
thing away at a time (device_plugin(drop=...)) and expect the real plugin's failure message,
or run it with the command line, environment and probe the collection's plan renders for a
release (device_plugin(version=..., command=..., extra_env=..., healthz=...)).
"""

import copy

NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "ascend-device-plugin-sa-910"
CLUSTER_ROLE = "pods-node-ascend-device-plugin-role-910"
DAEMONSET = "ascend-device-plugin-daemonset"
LOG_DIR = "/var/log/mindx-dl/devicePlugin"

RULES = [
    {
        "apiGroups": [""],
        "resources": ["pods"],
        "verbs": ["get", "list", "update", "watch", "patch"],
    },
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]},
    {
        "apiGroups": [""],
        "resources": ["nodes/status"],
        "verbs": ["get", "patch", "update"],
    },
    {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "verbs": ["get", "create", "update", "list", "watch"],
    },
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
]

VOLUMES = {
    # name: (mountPath, hostPath, readOnly, hostPath type)
    "device-plugin": (
        "/var/lib/kubelet/device-plugins",
        "/var/lib/kubelet/device-plugins",
        False,
        "",
    ),
    "pod-resource": (
        "/var/lib/kubelet/pod-resources",
        "/var/lib/kubelet/pod-resources",
        False,
        "",
    ),
    "hiai-driver": ("/usr/local/Ascend/driver", "/usr/local/Ascend/driver", True, ""),
    "log-path": (LOG_DIR, LOG_DIR, False, "DirectoryOrCreate"),
    "tmp": ("/tmp", "/tmp", False, ""),
    "containerd": ("/run/containerd", "/run/containerd", True, ""),
}


DEFAULT_COMMAND = (
    "device-plugin -logFile=%s/devicePlugin.log -logLevel=0 -listWatchPeriod=5"
    % LOG_DIR
)


def device_plugin(
    version="7.3.0",
    resource="Ascend910",
    drop=(),
    rules=None,
    image=None,
    command=DEFAULT_COMMAND,
    extra_env=(),
    healthz=None,
    host_paths=None,
):
    """The ServiceAccount, ClusterRole, binding and DaemonSet, as a list of objects.

    drop: names of things to leave out: a volume name of VOLUMES, "NODE_NAME" (the env),
    "token" (automountServiceAccountToken: false).
    rules: the ClusterRole's rules (default RULES).
    command, extra_env, healthz: the container's command line, more [name, value] environment and
    the (port, path) of its liveness probe (default: none).
    host_paths: {volume name: another host path} (created when missing).
    """
    labels = {"name": "ascend-device-plugin-ds"}
    mounts, volumes = [], []
    for name, (mount, host, read_only, kind) in VOLUMES.items():
        if name in drop:
            continue
        mounts.append({"name": name, "mountPath": mount, "readOnly": read_only})
        source = {"path": host}
        if kind:
            source["type"] = kind
        if name in (host_paths or {}):
            source = {"path": host_paths[name], "type": "DirectoryOrCreate"}
        volumes.append({"name": name, "hostPath": source})
    env = (
        []
        if "NODE_NAME" in drop
        else [
            {
                "name": "NODE_NAME",
                "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}},
            }
        ]
    )
    env += [{"name": name, "value": value} for name, value in extra_env]
    resources = {"cpu": "500m", "memory": "500Mi"}
    pod_spec = {
        "serviceAccountName": SERVICE_ACCOUNT,
        "priorityClassName": "system-node-critical",
        "nodeSelector": {"accelerator": "huawei-" + resource},
        "tolerations": [
            {
                "key": "huawei.com/" + resource,
                "operator": "Exists",
                "effect": "NoSchedule",
            }
        ],
        "containers": [
            {
                "name": "device-plugin-01",
                "image": image
                or "docker.io/library/ascend-k8sdeviceplugin:v" + version,
                "imagePullPolicy": "Never",
                "command": ["/bin/bash", "-c", "--"],
                "args": [command],
                "resources": {"requests": dict(resources), "limits": dict(resources)},
                "securityContext": {"privileged": True, "readOnlyRootFilesystem": True},
                "volumeMounts": mounts,
                "env": env,
            }
        ],
        "volumes": volumes,
    }
    if healthz:
        pod_spec["containers"][0]["livenessProbe"] = {
            "httpGet": {"path": healthz[1], "port": healthz[0], "scheme": "HTTP"},
            "initialDelaySeconds": 30,
            "periodSeconds": 15,
            "timeoutSeconds": 5,
            "failureThreshold": 3,
        }
    if "token" in drop:
        pod_spec["automountServiceAccountToken"] = False
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": SERVICE_ACCOUNT, "namespace": NAMESPACE},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": CLUSTER_ROLE},
            "rules": copy.deepcopy(RULES if rules is None else rules),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": CLUSTER_ROLE + "-binding"},
            "subjects": [
                {
                    "kind": "ServiceAccount",
                    "name": SERVICE_ACCOUNT,
                    "namespace": NAMESPACE,
                }
            ],
            "roleRef": {
                "kind": "ClusterRole",
                "name": CLUSTER_ROLE,
                "apiGroup": "rbac.authorization.k8s.io",
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": DAEMONSET, "namespace": NAMESPACE},
            "spec": {
                "selector": {"matchLabels": labels},
                "updateStrategy": {"type": "RollingUpdate"},
                "template": {"metadata": {"labels": labels}, "spec": pod_spec},
            },
        },
    ]


def without_verb(resource, verb):
    """RULES with one verb taken away from one resource."""
    rules = copy.deepcopy(RULES)
    for rule in rules:
        if resource in rule["resources"]:
            rule["verbs"] = [v for v in rule["verbs"] if v != verb]
    return rules


def npu_pod(name, count, resource="Ascend910", command=None):
    """A pod of the workload image asking for `count` NPUs (requests == limits)."""
    amount = {"huawei.com/" + resource: str(count)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            "containers": [
                {
                    "name": "main",
                    "image": "docker.io/cubestudio/workload:latest",
                    "imagePullPolicy": "Never",
                    "command": command
                    or [
                        "/bin/sh",
                        "-c",
                        "npu-smi info; echo ASCEND_VISIBLE_DEVICES=$ASCEND_VISIBLE_DEVICES",
                    ],
                    "resources": {"requests": dict(amount), "limits": dict(amount)},
                }
            ],
        },
    }
