# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated Ascend Docker Runtime package: flags, licence, engine configuration edits."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile

import pytest
import tomllib
from ascend_sim import engine_config
from simutil import fixture_path, read_fixture, runtime_pkg

BIN = "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-runtime"
LEGACY = runtime_pkg("7.3.0")
OLDEST = runtime_pkg("6.0.0")
MODERN = runtime_pkg("26.1.0")
CRI2 = "io.containerd.grpc.v1.cri"
CRI3 = "io.containerd.cri.v1.runtime"


def install(sim, package, *args, stdin="y\n", env=None):
    return sim.run(package, "--install", *args, stdin=stdin, env=env)


def toml(sim, path="/etc/containerd/config.toml"):
    return tomllib.loads(sim.read(path))


def put_containerd_config(sim, name):
    sim.write("/etc/containerd/config.toml", read_fixture("engine-config", name))


def runtimes(data, plugin):
    return data["plugins"][plugin]["containerd"]["runtimes"]


# ----------------------------------------------------------------------------- Docker


def test_docker_template_when_daemon_json_is_missing(sim):
    result = install(sim, MODERN)
    assert result.returncode == 0, result.stdout + result.stderr
    text = sim.read("/etc/docker/daemon.json")
    assert text == engine_config.DOCKER_TEMPLATE % BIN
    assert json.loads(text) == {
        "runtimes": {"ascend": {"path": BIN, "runtimeArgs": []}},
        "default-runtime": "ascend",
    }
    # Expanded with 8-column tabs it is the text published in container-runtime-config.md.
    assert '        "runtimes":     {' in text.expandtabs(8)
    assert stat.S_IMODE(os.stat(sim.p("/etc/docker/daemon.json")).st_mode) == 0o600
    assert (
        "[INFO] please reboot daemon and container engine to take effect"
        in result.stdout
    )
    assert "[INFO] /etc/docker/daemon.json modify success" in result.stdout


def test_docker_merge_keeps_other_settings_and_reserialises(sim):
    original = json.loads(read_fixture("engine-config", "notes-registry-mirrors.json"))
    sim.write(
        "/etc/docker/daemon.json",
        read_fixture("engine-config", "notes-registry-mirrors.json"),
    )
    assert install(sim, LEGACY).returncode == 0
    text = sim.read("/etc/docker/daemon.json")
    merged = json.loads(text)
    expected = dict(original, runtimes={"ascend": {"path": BIN, "runtimeArgs": []}})
    expected["default-runtime"] = "ascend"
    assert merged == expected
    assert text == json.dumps(
        expected, indent=8, sort_keys=True
    )  # Go MarshalIndent, 8 spaces
    removed = sim.run(LEGACY, "--uninstall")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    after = json.loads(sim.read("/etc/docker/daemon.json"))
    assert after == dict(original, runtimes={})
    assert not sim.exists("/usr/local/Ascend/Ascend-Docker-Runtime")
    assert not sim.exists("/etc/ascend-docker-runtime.d")


def test_uninstall_keeps_a_foreign_default_runtime(sim):
    sim.write(
        "/etc/docker/daemon.json",
        '{"default-runtime": "runc", "runtimes": {"kata": {"path": "/bin/kata"}}}',
    )
    assert install(sim, LEGACY).returncode == 0
    assert sim.run(LEGACY, "--uninstall").returncode == 0
    assert json.loads(sim.read("/etc/docker/daemon.json")) == {
        "runtimes": {"kata": {"path": "/bin/kata"}}
    }


def test_isula_keeps_the_default_runtime(sim):
    result = install(sim, OLDEST, "--ce=isula")
    assert result.returncode == 0, result.stdout
    assert json.loads(sim.read("/etc/isulad/daemon.json")) == {
        "runtimes": {"ascend": {"path": BIN, "runtimeArgs": []}}
    }
    assert not sim.exists("/etc/docker/daemon.json")
    both = install(sim, OLDEST, "--ce=isula", "--install-scene=docker")
    assert (
        both.returncode == 1
        and "incompatible parameters: '--install-scene'" in both.stdout
    )


def test_daemon_json_must_be_owned_by_root(sim):
    sim.write("/etc/docker/daemon.json", "{}")
    os.chown(sim.p("/etc/docker/daemon.json"), 65534, 65534)
    result = install(sim, LEGACY)
    assert result.returncode == 1
    assert (
        "[ERROR] user or group of /etc/docker/daemon.json is not root" in result.stdout
    )
    assert "[ERROR] install failed, /etc/docker/daemon.json is invalid" in result.stdout
    os.chown(sim.p("/etc/docker/daemon.json"), 0, 0)
    os.chmod(sim.p("/etc/docker"), 0o775)
    result = install(sim, LEGACY)
    assert result.returncode == 1
    assert "[ERROR] group or other of /etc/docker has write permission" in result.stdout


def test_invalid_daemon_json_fails_the_helper(sim):
    sim.write("/etc/docker/daemon.json", "{not json")
    result = install(sim, LEGACY)
    assert result.returncode == 1
    assert "install failed, './ascend-docker-plugin-install-helper add" in result.stdout
    assert sim.read("/etc/docker/daemon.json") == "{not json"


# ----------------------------------------------------------------------------- containerd


def test_legacy_containerd_cgroup_v1_edits_runc_in_place(sim):
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    before = toml(sim)
    result = install(sim, LEGACY, "--install-scene=containerd")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[INFO] install scene is 'containerd'." in result.stdout
    after = toml(sim)
    assert after["plugins"]["io.containerd.runtime.v1.linux"]["runtime"] == BIN
    assert (
        runtimes(after, CRI2)["runc"]["runtime_type"]
        == "io.containerd.runtime.v1.linux"
    )
    assert "ascend" not in runtimes(after, CRI2)
    assert after["plugins"][CRI2]["containerd"]["default_runtime_name"] == "runc"
    # Nothing else changed.
    after["plugins"]["io.containerd.runtime.v1.linux"]["runtime"] = "runc"
    runtimes(after, CRI2)["runc"]["runtime_type"] = "io.containerd.runc.v2"
    assert after == before
    removed = sim.run(LEGACY, "--uninstall", "--install-scene=containerd")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert toml(sim) == before


def test_legacy_containerd_cgroup_v2_sets_binary_name(sim):
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    env = {"ASCEND_SIM_CGROUP_FSTYPE": "cgroup2fs"}
    assert install(sim, LEGACY, "--install-scene=containerd", env=env).returncode == 0
    after = toml(sim)
    assert runtimes(after, CRI2)["runc"]["options"]["BinaryName"] == BIN
    assert runtimes(after, CRI2)["runc"]["runtime_type"] == "io.containerd.runc.v2"
    assert after["plugins"]["io.containerd.runtime.v1.linux"]["runtime"] == "runc"
    assert (
        sim.run(LEGACY, "--uninstall", "--install-scene=containerd", env=env).returncode
        == 0
    )
    assert runtimes(toml(sim), CRI2)["runc"]["options"]["BinaryName"] == ""


def _cgroup_mounts():
    found = {}
    with open("/proc/mounts", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if fields[2] in ("cgroup2", "tmpfs") and fields[1].startswith(
                "/sys/fs/cgroup"
            ):
                found.setdefault(fields[2], fields[1])
    return found


def test_legacy_branch_follows_stat_of_the_cgroup_path(sim):
    """The branch comes from `stat -fc %T <path>` of the configured cgroup path."""
    cases = [(sim.path, "v1")]  # the simulator root is no cgroup filesystem
    mounts = _cgroup_mounts()
    if "cgroup2" in mounts:
        cases.append((mounts["cgroup2"], "v2"))
    for path, branch in cases:
        put_containerd_config(sim, "containerd-1.6.20-default.toml")
        assert (
            install(
                sim,
                LEGACY,
                "--install-scene=containerd",
                env={"ASCEND_SIM_CGROUP_PATH": path},
            ).returncode
            == 0
        )
        runc = runtimes(toml(sim), CRI2)["runc"]
        assert (runc["options"].get("BinaryName") == BIN) == (branch == "v2"), path
        assert (runc["runtime_type"] == "io.containerd.runtime.v1.linux") == (
            branch == "v1"
        ), path


def test_legacy_does_not_configure_a_config_version_3(sim):
    put_containerd_config(sim, "containerd-2.1.9-default.toml")
    before = toml(sim)
    assert install(sim, LEGACY, "--install-scene=containerd").returncode == 0
    after = toml(sim)
    assert after["plugins"][CRI3] == before["plugins"][CRI3]
    assert "ascend" not in runtimes(after, CRI3)
    assert CRI2 in after["plugins"]  # written where containerd 2.x does not look


@pytest.mark.parametrize(
    ("fixture", "plugin"),
    [("containerd-1.6.20-default.toml", CRI2), ("containerd-2.1.9-default.toml", CRI3)],
)
def test_modern_adds_a_default_ascend_runtime(sim, fixture, plugin):
    put_containerd_config(sim, fixture)
    before = toml(sim)
    result = install(sim, MODERN, "--install-scene=containerd")
    assert result.returncode == 0, result.stdout + result.stderr
    after = toml(sim)
    ascend = runtimes(after, plugin)["ascend"]
    runc = runtimes(after, plugin)["runc"]
    assert runc == runtimes(before, plugin)["runc"]
    expected = json.loads(json.dumps(runc))
    expected["options"]["BinaryName"] = BIN
    assert ascend == expected
    assert after["plugins"][plugin]["containerd"]["default_runtime_name"] == "ascend"
    assert sim.run(MODERN, "--uninstall", "--install-scene=containerd").returncode == 0
    removed = toml(sim)
    assert "ascend" not in runtimes(removed, plugin)
    assert removed == before


def test_modern_config_version_1_and_missing_runc(sim):
    sim.write(
        "/etc/containerd/config.toml",
        'version = 1\n[plugins.cri.containerd]\n  snapshotter = "overlayfs"\n',
    )
    assert install(sim, MODERN, "--install-scene=containerd").returncode == 0
    after = toml(sim)
    assert after["plugins"]["cri"]["containerd"]["default_runtime_name"] == "ascend"
    assert after["plugins"]["cri"]["containerd"]["runtimes"]["ascend"] == {
        "runtime_type": "io.containerd.runc.v2",
        "runtime_root": "",
        "runtime_engine": "",
        "privileged_without_host_devices": False,
        "options": {"SystemdCgroup": True, "BinaryName": BIN},
    }


def test_missing_config_toml_comes_from_containerd_config_default(sim, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "containerd").write_text(
        "#!/bin/sh\n[ \"$1 $2\" = 'config default' ] && exec cat %s\nexit 1\n"
        % fixture_path("engine-config", "containerd-1.6.20-default.toml")
    )
    os.chmod(fake / "containerd", 0o755)
    env = {"PATH": "%s:%s" % (fake, os.environ["PATH"])}
    result = install(sim, MODERN, "--install-scene=containerd", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "[INFO] containerd config file does not exist, default /etc/containerd/config.toml will be created"
        in result.stdout
    )
    after = toml(sim)
    assert after["version"] == 2
    assert runtimes(after, CRI2)["ascend"]["options"]["BinaryName"] == BIN
    assert stat.S_IMODE(os.stat(sim.p("/etc/containerd/config.toml")).st_mode) == 0o600


def test_written_toml_keeps_the_containerd_style(sim):
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    assert install(sim, MODERN, "--install-scene=containerd").returncode == 0
    text = sim.read("/etc/containerd/config.toml")
    original = read_fixture("engine-config", "containerd-1.6.20-default.toml")
    # Top-level keys keep their order (containerd prints version last) and come first.
    assert text.split("\n[", 1)[0] == original.split("\n[", 1)[0]
    assert '\n  [plugins."io.containerd.grpc.v1.cri"]\n' in text
    assert (
        '\n        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ascend]\n'
        in text
    )


def test_crio_drop_in(sim):
    result = install(sim, MODERN, "--install-scene=crio")
    assert result.returncode == 0, result.stdout
    data = toml(sim, "/etc/crio/crio.conf.d/99-ascend-runtime.conf")
    assert data["crio"]["runtime"]["default_runtime"] == "ascend"
    assert data["crio"]["runtime"]["runtimes"]["ascend"]["runtime_path"] == BIN
    legacy = install(sim, LEGACY, "--install-scene=crio")
    assert (
        legacy.returncode == 1
        and "please check the parameter of --install-scene" in legacy.stdout
    )


def test_uninstall_edits_the_scene_given_on_its_own_command_line(sim):
    """Like run_main.sh, --uninstall without --install-scene edits daemon.json only."""
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    assert install(sim, MODERN, "--install-scene=containerd").returncode == 0
    assert sim.run(MODERN, "--uninstall").returncode == 0
    assert "ascend" in runtimes(toml(sim), CRI2)
    assert not sim.exists("/usr/local/Ascend/Ascend-Docker-Runtime")


# ----------------------------------------------------------------------------- licence


def test_licence_prompt(sim):
    declined = install(sim, MODERN, stdin="N\n")
    assert declined.returncode == 0  # looks like success
    assert (
        "Do you accept the EULA to install Ascend-docker-runtime?[Y/N]"
        in declined.stdout
    )
    assert "[INFO] install cancelled, user declined EULA" in declined.stdout
    assert not sim.exists("/usr/local/Ascend/Ascend-Docker-Runtime")
    closed = install(sim, MODERN, stdin="")
    assert closed.returncode == 1
    assert "stdin was closed before the EULA was answered" in closed.stdout
    assert not sim.exists("/etc/docker/daemon.json")
    retried = install(sim, MODERN, stdin="maybe\ny\n")
    assert retried.returncode == 0
    assert retried.stdout.count("Do you accept the EULA") == 2
    assert "[INFO] user accepted EULA" in retried.stdout
    assert "user accepted EULA" in sim.read(
        "/var/log/ascend-docker-runtime/installer.log"
    )
    upgrade = sim.run(MODERN, "--upgrade", stdin="")
    assert upgrade.returncode == 1 and "EULA" in upgrade.stdout


def test_older_runtimes_do_not_ask(sim):
    result = install(sim, LEGACY, stdin="")
    assert result.returncode == 0
    assert "EULA" not in result.stdout


# ----------------------------------------------------------------------------- flags


@pytest.mark.parametrize(
    ("package", "args", "message"),
    [
        (
            MODERN,
            ["--install-scene=containerd"],
            "[ERROR] failed, only input <install-scene> command",
        ),
        (
            MODERN,
            ["--install-path=/opt"],
            "[ERROR] failed, only input <install_path> command",
        ),
        (
            MODERN,
            ["--injection-mode=cdi", "--uninstall"],
            "only input <injection-mode> command",
        ),
        (
            MODERN,
            ["--install", "--install"],
            "[ERROR] install failed, '--install' Repeat parameter!",
        ),
        (
            MODERN,
            ["--install", "--install-scene=docker", "--install-scene=docker"],
            "'--install-scene' Repeat parameter!",
        ),
        (
            MODERN,
            ["--install", "--install-scene=podman"],
            "please check the parameter of --install-scene=<scene>",
        ),
        (
            MODERN,
            ["--install", "--install-type=A999"],
            "please check the parameter of --install-type=<type>",
        ),
        (
            MODERN,
            ["--install", "--config-file-path=/etc/none.json"],
            "failed, file '/etc/none.json' does not exist.",
        ),
        (LEGACY, ["--install", "--injection-mode=cdi"], "Error input"),
    ],
)
def test_refused_command_lines(sim, package, args, message):
    result = sim.run(package, *args, stdin="y\n")
    assert result.returncode == 1
    assert message in result.stdout + result.stderr
    assert not sim.exists("/usr/local/Ascend/Ascend-Docker-Runtime")


def test_unknown_flags_and_nox11(sim):
    unknown = sim.run(MODERN, "--install", "--frobnicate", stdin="y\n")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("Error input\nUsage: ")
    nox11 = sim.run(MODERN, "--nox11", "--install", stdin="y\n")
    assert nox11.returncode == 1 and "Error input" in nox11.stderr
    old = sim.run(LEGACY, "--nox11", "--install", "--quiet")
    assert old.returncode == 0, old.stdout
    assert "[WARNING]: --nox11 is meaningless for ascend-docker-runtime" in old.stdout
    assert "[WARNING]: --quiet is meaningless for ascend-docker-runtime" in old.stdout


def test_version_check_help(sim):
    version = sim.run(MODERN, "--version")
    assert version.returncode == 0
    assert version.stdout.splitlines()[-1] == "ascend-docker-runtime version: 26.1.0"
    check = sim.run(MODERN, "--check")
    assert check.returncode == 0
    assert check.stdout.startswith(
        "[WARNING]: --check is meaningless for ascend-docker-runtime"
    )
    assert "SHA256 checksums are OK. All good." in check.stdout
    helped = sim.run(MODERN, "-h")
    assert helped.returncode == 0 and "--install-scene=<scene>" in helped.stderr
    bare = sim.run(MODERN)
    assert (
        bare.returncode == 0
        and "Usage: ./Ascend-docker-runtime_26.1.0_linux-x86_64.run" in bare.stdout
    )


def test_must_run_as_root(packages):
    shared = tempfile.mkdtemp(prefix="ascend-sim-nobody-")
    try:
        os.chmod(shared, 0o777)
        path = packages.copy(MODERN, shared)
        env = dict(os.environ, ASCEND_SIM_ROOT=shared, HOME=shared, TMPDIR=shared)
        result = subprocess.run(
            ["bash", path, "--install"],
            input="y\n",
            capture_output=True,
            text=True,
            env=env,
            check=False,
            user="nobody",
            cwd=shared,
        )
    finally:
        shutil.rmtree(shared)
    assert result.returncode == 1
    assert "[ERROR] failed, please run with root permission" in result.stdout


def test_platform_mismatch(sim):
    result = install(sim, runtime_pkg("26.1.0", arch="aarch64"))
    assert result.returncode == 1
    assert (
        "[ERROR] platform(x86_64) mismatch for Ascend-docker-runtime_26.1.0_linux-aarch64.run, please check it"
        in result.stdout
    )


# ----------------------------------------------------------------------------- files


def info_keys(text):
    return [line.split("=", 1)[0] for line in text.splitlines()]


@pytest.mark.parametrize(
    ("package", "drop"),
    [(MODERN, 0), (LEGACY, 1), (OLDEST, 3)],
)
def test_install_info_keys_per_version(sim, package, drop):
    assert install(sim, package, "--install-scene=docker").returncode == 0
    text = sim.read(
        "/usr/local/Ascend/Ascend-Docker-Runtime/ascend_docker_runtime_install.info"
    )
    expected = info_keys(
        read_fixture("installed-files", "ascend_docker_runtime_install.info.FORMAT")
    )
    assert info_keys(text) == expected[: len(expected) - drop]
    version = package.split("_")[1]
    assert text.startswith(
        "version=v%s\narch=x86_64\nos=linux\npath=/usr/local/Ascend/Ascend-Docker-Runtime\n"
        % version
    )
    assert "build=Ascend-docker-runtime_%s-x86_64\n" % version in text


def test_installed_files_and_modes(sim):
    assert (
        install(
            sim, MODERN, "--install-path=/opt/rt", "--injection-mode=cdi"
        ).returncode
        == 0
    )
    base = "/opt/rt/Ascend-Docker-Runtime"
    for name in (
        "ascend-docker-runtime",
        "ascend-docker-hook",
        "ascend-docker-cli",
        "ascend-docker-destroy",
        "ascend-docker-plugin-install-helper",
    ):
        assert stat.S_IMODE(os.stat(sim.p("%s/%s" % (base, name))).st_mode) == 0o550, (
            name
        )
    assert stat.S_IMODE(os.stat(sim.p(base + "/script/uninstall.sh")).st_mode) == 0o500
    assert (
        stat.S_IMODE(os.stat(sim.p("/etc/ascend-docker-runtime.d/base.list")).st_mode)
        == 0o440
    )
    base_list = sim.read("/etc/ascend-docker-runtime.d/base.list").splitlines()
    assert base_list[:4] == [
        "/usr/local/Ascend/driver/lib64",
        "/usr/local/Ascend/driver/include",
        "/usr/local/dcmi",
        "/usr/local/bin/npu-smi",
    ]
    info = sim.read(base + "/ascend_docker_runtime_install.info")
    assert (
        "injection-mode=cdi\n" in info
        and "path=/opt/rt/Ascend-Docker-Runtime\n" in info
    )
    assert (
        json.loads(sim.read("/etc/docker/daemon.json"))["runtimes"]["ascend"]["path"]
        == base + "/ascend-docker-runtime"
    )


def test_upgrade_keeps_the_engine_configuration(sim):
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    assert install(sim, OLDEST, "--install-scene=containerd").returncode == 0
    config = sim.read("/etc/containerd/config.toml")
    upgraded = sim.run(LEGACY, "--upgrade")
    assert upgraded.returncode == 0, upgraded.stdout
    assert "[INFO] upgrade ascend-docker-runtime success" in upgraded.stdout
    assert "[INFO] The version of ascend-docker-runtime is: v7.3.0" in upgraded.stdout
    assert sim.read("/etc/containerd/config.toml") == config
    info = sim.read(
        "/usr/local/Ascend/Ascend-Docker-Runtime/ascend_docker_runtime_install.info"
    )
    assert "version=v7.3.0\n" in info
    assert (
        "install-scene=docker\n" in info
    )  # run_main.sh writes its default scene on upgrade


def test_upgrade_without_install(sim):
    result = sim.run(LEGACY, "--upgrade")
    assert result.returncode == 1
    assert (
        "upgrade failed, the specified install path does not exist, stopping upgrading"
        in result.stdout
    )


def test_reinstall_is_idempotent(sim):
    put_containerd_config(sim, "containerd-2.1.9-default.toml")
    assert install(sim, MODERN, "--install-scene=containerd").returncode == 0
    first = sim.read("/etc/containerd/config.toml")
    before = sim.tree("/usr/local/Ascend")
    assert install(sim, MODERN, "--install-scene=containerd").returncode == 0
    assert sim.read("/etc/containerd/config.toml") == first
    assert sim.tree("/usr/local/Ascend") == before


def test_installed_helper_is_the_same_editor(sim):
    assert install(sim, LEGACY).returncode == 0
    put_containerd_config(sim, "containerd-1.6.20-default.toml")
    helper = sim.p(
        "/usr/local/Ascend/Ascend-Docker-Runtime/ascend-docker-plugin-install-helper"
    )
    dst = sim.p("/etc/containerd/config.toml")
    result = subprocess.run(
        [helper, "add", dst, dst + ".new", BIN, "no", "containerd", "cgroup2fs"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    with open(dst + ".new", encoding="utf-8") as handle:
        written = tomllib.loads(handle.read())
    assert runtimes(written, CRI2)["runc"]["options"]["BinaryName"] == BIN
