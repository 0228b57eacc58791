# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The exporter role on the real cluster of the test bed, scraped by a real Prometheus.

The device_plugin role labels the node, the exporter role deploys npu-exporter (Huawei's own,
built from the source of each MindCluster tag: tests/mindcluster). Prometheus is Debian's (the test machine's /usr/bin/prometheus, copied into the
node, where pod addresses are routed): it scrapes the exporter's pod, loads the role's rules
file, and every dashboard query returns data for the node. The rules are the role's with a
short `for` for the temperature alert (exporter_alert_temperature_for=20s, set as the role sets
it): the alert goes pending when the simulator heats a chip, fires 20 s later, and clears when
the chip cools. The default durations are proven by `promtool test rules` (tests/promtool).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
import urllib.parse

import manifests
import pytest
from ansible_run import ROOT, playbook, recap, task_status, validate_schemas
from bed import docker

from ansible_collections.cubestudio.ascend.plugins.module_utils._k8s._alert_rules import (
    with_durations,
)

BOOK = os.path.join(ROOT, "tests", "testbed", "playbooks", "kubernetes.yml")
RULES = os.path.join(ROOT, "roles", "exporter", "files", "ascend-npu.rules.yml")
DASHBOARD = os.path.join(
    ROOT, "roles", "exporter", "files", "ascend-npu-dashboard.json"
)
SIM = "/opt/ascend-sim/bin/ascend-sim"
PROM = "http://127.0.0.1:9090"
# How long the bed's hot chip must stay hot before its alert fires (default 5m).
HOT_SECONDS = 20
HOT_FOR = "%ds" % HOT_SECONDS

# Enough of the Prometheus operator's CRDs for the API server to store the two kinds.
CRDS = [
    {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "%s.monitoring.coreos.com" % plural},
        "spec": {
            "group": "monitoring.coreos.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }
    for plural, kind in (
        ("servicemonitors", "ServiceMonitor"),
        ("prometheusrules", "PrometheusRule"),
    )
]


@pytest.fixture(scope="module")
def exporter(cluster, tmp_path_factory):
    cluster.delete(
        manifests.device_plugin()
    )  # the plain manifests of test_device_plugin.py
    cluster.delete(CRDS)
    rc, out = playbook(
        cluster,
        tmp_path_factory.mktemp("exporter"),
        book=BOOK,
        device_plugin_smoke_test=False,
    )
    assert rc == 0, out
    yield cluster, out
    cluster.remove_kubernetes_layer()
    cluster.delete(CRDS)


def pod_ip(cluster):
    pods = cluster.get(
        "pods",
        "-n",
        "npu-exporter",
        "-l",
        "app=npu-exporter",
        "--field-selector",
        "spec.nodeName=" + cluster.node,
    )["items"]
    assert len(pods) == 1, pods
    return pods[0]["status"]["podIP"]


def test_the_exporter_runs_for_the_kubelet_s_engine(exporter):
    cluster, out = exporter
    assert task_status(out, "The exporter counts the node's NPUs", "exporter") == "ok"
    ds = cluster.get("daemonset", "-n", "npu-exporter", "npu-exporter")
    args = ds["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert "-containerMode=containerd" in args
    assert "-endpoint=/run/containerd/containerd.sock" in args
    service = cluster.get("service", "-n", "npu-exporter", "npu-exporter")
    assert service["metadata"]["annotations"]["prometheus.io/scrape"] == "true"
    policy = cluster.get(
        "networkpolicy", "-n", "npu-exporter", "exporter-network-policy"
    )
    assert policy["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"] == {
        "app": "prometheus"
    }
    dashboard = cluster.get("configmap", "-n", "npu-exporter", "ascend-npu-dashboard")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    with open(DASHBOARD, encoding="utf-8") as handle:
        assert json.loads(dashboard["data"]["ascend-npu.json"]) == json.load(handle)
    # No Prometheus operator on the bed yet: the cluster serves no ServiceMonitor kind, and the
    # one apply of the exporter's objects passed - a ServiceMonitor or PrometheusRule in it would
    # have failed it (no matches for kind). The next test adds the CRDs and finds both.
    kinds = cluster.kubectl("api-resources", "-o", "name")
    assert "servicemonitors.monitoring.coreos.com" not in kinds.split()
    assert task_status(out, "Apply the exporter's objects", "exporter") in (
        "ok",
        "changed",
    )
    metrics = node_get(cluster, "http://%s:8082/metrics" % pod_ip(cluster))
    assert "machine_npu_nums 8" in metrics
    assert metrics.count("npu_chip_info_temperature{") == 8


def test_with_the_operator_s_crds_it_adds_servicemonitor_and_rules(exporter, tmp_path):
    cluster, _out = exporter
    cluster.apply(CRDS)
    # The API server serves the new kinds once their CRDs are Established: wait for that
    # condition, not a fixed pause.
    cluster.kubectl(
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        *["crd/" + crd["metadata"]["name"] for crd in CRDS],
    )
    short = {"exporter_alert_temperature_for": HOT_FOR}
    rc, out = playbook(
        cluster, tmp_path, book=BOOK, device_plugin_smoke_test=False, **short
    )
    assert rc == 0, out
    monitor = cluster.get("servicemonitor", "-n", "npu-exporter", "npu-exporter")
    assert monitor["spec"]["endpoints"][0]["port"] == "http"
    rule = cluster.get("prometheusrule", "-n", "npu-exporter", "ascend-npu")
    alerts = [r["alert"] for r in rule["spec"]["groups"][0]["rules"]]
    assert alerts == [
        "AscendNpuTemperatureHigh",
        "AscendNpuUnhealthy",
        "AscendNpuHbmNearlyFull",
        "AscendNpuCountDropped",
        "AscendNpuExporterDown",
        "AscendNpuLinkDown",
        "AscendNpuNetworkUnhealthy",
    ]
    # The variable's duration for the temperature alert, the defaults for the others.
    assert [r["for"] for r in rule["spec"]["groups"][0]["rules"]] == [
        HOT_FOR,
        "1m",
        "10m",
        "5m",
        "5m",
        "1m",
        "5m",
    ]
    # And converged: nothing changes on the next run, nor in check mode.
    rc, out = playbook(
        cluster, tmp_path, book=BOOK, device_plugin_smoke_test=False, **short
    )
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out
    rc, out = playbook(
        cluster, tmp_path, "--check", book=BOOK, device_plugin_smoke_test=False, **short
    )
    assert rc == 0, out
    assert recap(out, cluster.container)["changed"] == 0, out


def test_render_mode_is_stable(exporter, tmp_path):
    cluster, _out = exporter
    render = tmp_path / "rendered"
    renders = []
    for _attempt in range(2):
        rc, out = playbook(
            cluster,
            tmp_path,
            book=BOOK,
            device_plugin_render_dir=str(render),
            exporter_render_dir=str(render),
        )
        assert rc == 0, out
        renders.append({p.name: p.read_bytes() for p in render.iterdir()})
    files = renders[1]
    assert files == renders[0]
    assert {
        "npu-exporter.yaml",
        "npu-exporter-monitoring.yaml",
        "npu-exporter-dashboard.yaml",
        "ascend-npu.rules.yml",
    } <= set(files)
    for name in ("npu-exporter.yaml", "npu-exporter-dashboard.yaml"):
        cluster.kubectl("apply", "--dry-run=server", "-f", str(render / name))
    assert validate_schemas(render / "npu-exporter.yaml") == [
        "Namespace",
        "NetworkPolicy",
        "DaemonSet",
        "Service",
    ]
    assert validate_schemas(render / "npu-exporter-dashboard.yaml") == ["ConfigMap"]


@pytest.fixture()
def prometheus(exporter):
    """Debian's Prometheus in the node, scraping the exporter's pod with the role's rules, the
    temperature alert's `for` set to HOT_FOR the way the role sets exporter_alert_temperature_for
    (the cubestudio.ascend.alert_rules filter); rules evaluated every 2 s."""
    cluster, _out = exporter
    target = "%s:8082" % pod_ip(cluster)
    config = (
        "global: {scrape_interval: 2s, evaluation_interval: 2s}\n"
        "rule_files: [/etc/cubestudio-prom/ascend-npu.rules.yml]\n"
        "scrape_configs:\n"
        "  - job_name: npu-exporter\n"
        "    static_configs: [{targets: ['%s']}]\n" % target
    )
    cluster.node_sh("mkdir -p /etc/cubestudio-prom /var/lib/cubestudio-prom")
    docker(
        "cp", "/usr/bin/prometheus", "%s:/usr/local/bin/prometheus" % cluster.container
    )
    with open(RULES, encoding="utf-8") as handle:
        rules = with_durations(handle.read(), {"AscendNpuTemperatureHigh": HOT_FOR})
    cluster.node_sh(
        "printf %%s %s > /etc/cubestudio-prom/ascend-npu.rules.yml" % shlex.quote(rules)
    )
    cluster.node_sh(
        "printf %s > /etc/cubestudio-prom/prometheus.yml" % shlex.quote(config)
    )
    cluster.node_sh(
        "systemd-run --unit cubestudio-prometheus --collect /usr/local/bin/prometheus "
        "--config.file=/etc/cubestudio-prom/prometheus.yml "
        "--storage.tsdb.path=/var/lib/cubestudio-prom --web.listen-address=127.0.0.1:9090"
    )
    yield cluster
    cluster.node_sh("systemctl stop cubestudio-prometheus", check=False)
    cluster.node_sh("rm -rf /var/lib/cubestudio-prom", check=False)


def node_get(cluster, url):
    """GET from inside the node (where pod addresses are routed); the node has no curl."""
    script = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())"
    return cluster.node_sh("python3 -c %s %s" % (shlex.quote(script), shlex.quote(url)))


def api(cluster, path, **params):
    body = json.loads(
        node_get(cluster, PROM + path + "?" + urllib.parse.urlencode(params))
    )
    assert body["status"] == "success", body
    return body["data"]


def test_prometheus_scrapes_loads_the_rules_and_every_panel_has_data(prometheus):
    cluster = prometheus
    cluster.wait(
        "Prometheus scrapes the exporter",
        lambda: api(cluster, "/api/v1/query", query='up{job="npu-exporter"} == 1')[
            "result"
        ],
        timeout=60,
    )
    groups = api(cluster, "/api/v1/rules")["groups"]
    rules = {r["name"]: r["health"] for g in groups for r in g["rules"]}
    assert rules == dict.fromkeys(
        [
            "AscendNpuTemperatureHigh",
            "AscendNpuUnhealthy",
            "AscendNpuHbmNearlyFull",
            "AscendNpuCountDropped",
            "AscendNpuExporterDown",
            "AscendNpuLinkDown",
            "AscendNpuNetworkUnhealthy",
        ],
        "ok",
    ), groups
    with open(DASHBOARD, encoding="utf-8") as handle:
        panels = json.load(handle)["panels"]
    for panel in panels:
        expr = panel["targets"][0]["expr"].replace(
            'instance=~"$instance"', 'instance=~".+"'
        )
        result = api(cluster, "/api/v1/query", query=expr)["result"]
        assert result, "the panel %r has no data: %s" % (panel["title"], expr)


def test_a_hot_chip_raises_the_temperature_alert_and_it_clears(prometheus):
    """Pending at once, firing after HOT_FOR, gone when the chip cools."""
    cluster = prometheus

    def alert_states():
        return {
            a["labels"].get("id"): a["state"]
            for a in api(cluster, "/api/v1/alerts")["alerts"]
            if a["labels"]["alertname"] == "AscendNpuTemperatureHigh"
        }

    cluster.wait(
        "exporter scraped", lambda: api(cluster, "/api/v1/query", query="up")["result"]
    )
    assert alert_states() == {}
    cluster.node_sh("%s fault set overtemp --npu 2 --temp 86 >/dev/null" % SIM)
    try:
        states = cluster.wait(
            "the alert is pending for NPU 2", alert_states, timeout=60, interval=0.5
        )
        assert states == {"2": "pending"}, states
        pending_at = time.time()
        states = cluster.wait(
            "the alert fires for NPU 2",
            lambda: alert_states() == {"2": "firing"} and alert_states(),
            timeout=60,
        )
        # Not before its `for` (less the 2 s evaluation interval and the 0.5 s of polling).
        assert time.time() - pending_at >= HOT_SECONDS - 3, states
        (firing,) = [
            a
            for a in api(cluster, "/api/v1/alerts")["alerts"]
            if a["labels"]["alertname"] == "AscendNpuTemperatureHigh"
        ]
        assert firing["labels"]["severity"] == "warning"
        assert firing["annotations"]["summary"].startswith("NPU 2 on "), firing
    finally:
        cluster.node_sh("%s fault clear overtemp >/dev/null" % SIM)
    cluster.wait("the alert clears", lambda: alert_states() == {}, timeout=60)


def metric_names(text):
    """The metric names a PromQL text (the rules file's expressions) reads."""
    return set(re.findall(r"\b((?:npu|machine)_[a-z0-9_]+)\b", text))


@pytest.mark.parametrize("version", ["26.0.0", "26.1.0"])
def test_each_release_s_exporter_runs_with_the_role_s_flags(
    exporter, tmp_path, version
):
    """The role's DaemonSet with the flags its plan renders for the release: Huawei's exporter
    of that tag starts (26.0.0 without healthz, which it would refuse with exit 2; 26.1.0 with
    it, probed on /), serves the node's 8 NPUs and every metric the alert rules read."""
    cluster, _out = exporter
    archive = os.path.join(
        ROOT, ".build", "images", "mindcluster", "npu-exporter_v%s_x86_64.tar" % version
    )
    rc, out = playbook(
        cluster,
        tmp_path,
        "--tags",
        "exporter",
        book=BOOK,
        device_plugin_smoke_test=False,
        exporter_version=version,
        exporter_image_archive=archive,
    )
    assert rc == 0, out
    ds = cluster.get("daemonset", "-n", "npu-exporter", "npu-exporter")
    container = ds["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].endswith(":v" + version)
    assert ("--enable-healthz=true" in container["args"][0]) is (version == "26.1.0")
    if version == "26.1.0":
        assert container["livenessProbe"]["httpGet"]["path"] == "/"
        assert node_get(cluster, "http://%s:11256/" % pod_ip(cluster)).strip() == "ok"
    metrics = cluster.wait(
        "the exporter serves the 8 NPUs",
        lambda: (
            "machine_npu_nums 8"
            in (m := node_get(cluster, "http://%s:8082/metrics" % pod_ip(cluster)))
            and m
        ),
        timeout=120,
    )
    with open(RULES, encoding="utf-8") as handle:
        wanted = metric_names(handle.read())
    served = set(re.findall(r"^([a-z_:][a-z0-9_:]*)[{ ]", metrics, re.M))
    assert wanted and wanted <= served, sorted(wanted - served)
    pods = cluster.get("pods", "-n", "npu-exporter", "-l", "app=npu-exporter")["items"]
    assert all(
        c["restartCount"] == 0 for p in pods for c in p["status"]["containerStatuses"]
    ), pods
