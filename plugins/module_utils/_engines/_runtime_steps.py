# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice.
"""The ascend_runtime role's decisions between its steps (issue 23: Jinja formats, it does not
decide). What the package does is the plan's (``_node_plan.runtime_action``); the engines to
wire are container_engine_info's (``_kubelet_engine``). Here the rest:

- ``service_states``: the running and the known services of service_facts.
- ``engine_choice``: the engines kept, the missing ones and the refusal, whether kubelet restarts.
- ``cgroup_options``: the cgroup driver and the runtime's SystemdCgroup option.
- ``package_steps``: the installer steps of a package action, the engine file it rewrites.
- ``changed_engines``: the engines whose file the configure step changed.
- ``verify_decision``: why the check container does not run, whether the default is checked.
- ``image_state``: whether the check image is on the node, why the check is skipped without it.
- ``check_output``: what the check container printed, on the engine that ran it.
- ``cri_plugin_state`` / ``containerd_restart`` / ``containerd_failure``: containerd's CRI plugin
  after a restart, what to put back when it did not come back, and the refusal that says so.
"""

from __future__ import annotations

import re

ENGINES = ("docker", "containerd")
PACKAGE_STEPS = {
    "install": ["install"],
    "upgrade": ["upgrade"],
    "reinstall": ["uninstall", "install"],
    "uninstall": ["uninstall"],
}
CGROUP_DRIVERS = ("systemd", "cgroupfs")
NO_NPU_DRIVER = (
    "no NPU driver on the node (/usr/local/sbin/npu-smi is missing): install it first "
    "(npu_driver role)"
)
CHECK_MODE = "check mode: nothing was installed, configured or restarted"
_CRI_OK = re.compile(r"\sok\s*$")
_CRI_ERROR = re.compile(r"\serror\s*$")


def service_states(services) -> dict:
    """``{running, installed}``: the names of service_facts' ``services`` (None when it found
    none) that run, and all of them, as service_facts names them (``docker.service``)."""
    services = services or {}
    return {
        "running": [
            name
            for name, state in services.items()
            if isinstance(state, dict) and state.get("state") == "running"
        ],
        "installed": list(services),
    }


def engine_choice(
    info: dict,
    services,
    host: str,
    restart_allowed: bool = True,
    restart_kubelet: bool = True,
) -> dict:
    """The engines of container_engine_info's answer ``info`` as the role keeps them.

    ``missing``: the engines the node has no service of; ``problem``: the refusal when there is
    no engine or one is missing ('' when none); ``kubelet_running`` from service_facts'
    ``services``; ``restart_kubelet``: the kubelet restart after containerd's (allowed, asked
    for, and kubelet runs)."""
    services = services or {}
    engines = list(info.get("engines") or [])
    known = [re.sub(r"\.service$", "", name) for name in services]
    missing = [engine for engine in engines if engine not in known]
    kubelet = services.get("kubelet.service")
    kubelet_running = isinstance(kubelet, dict) and kubelet.get("state") == "running"
    if not engines:
        problem = (
            "No container engine runs on %s (neither docker.service nor containerd.service is "
            "running), so there is nothing to wire the Ascend runtime into: install and start "
            "Docker or containerd first, or name the engine with ascend_runtime_engine (docker or "
            "containerd)." % host
        )
    elif missing:
        problem = (
            "The Ascend runtime goes into %s (%s) but %s does not exist on %s: install %s first, "
            "or set ascend_runtime_engine to the engine the node uses."
            % (
                " and ".join(engines),
                info.get("reason") or "",
                " and ".join(engine + ".service" for engine in missing),
                host,
                " and ".join(missing),
            )
        )
    else:
        problem = ""
    return {
        "engines": engines,
        "engine": info.get("engine"),
        "kubelet": info.get("kubelet"),
        "missing": missing,
        "problem": problem,
        "kubelet_running": kubelet_running,
        "restart_kubelet": bool(
            restart_allowed and restart_kubelet and kubelet_running
        ),
    }


def cgroup_options(setting: str, kubelet_config) -> dict:
    """``{driver, runtime_options}``: the cgroup driver (``setting``, or with ``auto`` the
    ``cgroupDriver`` of the kubelet's parsed configuration; '' when unknown) and the runtime's
    options that follow from it (``SystemdCgroup`` for systemd or cgroupfs, else none: the
    runtime keeps runc's setting)."""
    if setting and setting != "auto":
        driver = setting
    elif isinstance(kubelet_config, dict):
        driver = kubelet_config.get("cgroupDriver")
        driver = "" if driver is None else driver
    else:
        driver = ""
    driver = str(driver).strip()
    options = {"SystemdCgroup": driver == "systemd"} if driver in CGROUP_DRIVERS else {}
    return {"driver": driver, "runtime_options": options}


def package_steps(
    action: str, engine: str, docker_config: str, containerd_config: str
) -> dict:
    """``{steps, engine_file}``: the installer runs of a package ``action`` of the plan (a
    reinstall is an uninstall, then an install), and the engine file the installer rewrites
    (the one of its install scene ``engine``)."""
    if action not in PACKAGE_STEPS:
        raise ValueError(
            "action must be one of %s, got %r" % (", ".join(PACKAGE_STEPS), action)
        )
    return {
        "steps": list(PACKAGE_STEPS[action]),
        "engine_file": docker_config if engine == "docker" else containerd_config,
    }


def _changed(result) -> bool:
    """Ansible's ``is changed`` on a registered result."""
    if not isinstance(result, dict):
        return False
    if result.get("changed", False):
        return True
    return any(_changed(item) for item in result.get("results") or [])


def changed_engines(results: dict) -> list:
    """The engines (docker first) whose registered configure result changed the file."""
    return [engine for engine in ENGINES if _changed((results or {}).get(engine))]


def verify_decision(
    check_mode: bool,
    engine: str,
    changed: list,
    restart_allowed: bool,
    npu_smi_present: bool,
    kubelet,
    set_default: bool,
) -> dict:
    """``{skip, check_default}``: why the check container cannot run ('' when it can): check
    mode, an engine file changed but not restarted, no npu-smi; and whether the default runtime
    of the kubelet's engine is checked (a kubelet, the runtime set as default, and an engine
    that runs its file)."""
    held = bool(changed) and not restart_allowed
    if check_mode:
        skip = CHECK_MODE
    elif held:
        skip = "%s was not restarted (ascend_runtime_restart_allowed is false)" % engine
    elif not npu_smi_present:
        skip = NO_NPU_DRIVER
    else:
        skip = ""
    return {
        "skip": skip,
        "check_default": kubelet is not None
        and bool(set_default)
        and not check_mode
        and not held,
    }


def _of_engine(engine: str, results: dict) -> dict:
    if engine not in ENGINES:
        raise ValueError("engine must be docker or containerd, got %r" % (engine,))
    result = (results or {}).get(engine)
    return result if isinstance(result, dict) else {}


def image_state(
    engine: str, results: dict, image: str, namespace: str, pull: bool
) -> dict:
    """``{present, skip}``: whether the check image is on the node (``docker image inspect``
    exits 0, ``ctr images ls --quiet`` prints it), and why the check is skipped when it is not
    and may not be pulled ('' otherwise)."""
    result = _of_engine(engine, results)
    if engine == "docker":
        present = result.get("rc", 1) == 0
    else:
        present = len(str(result.get("stdout") or "").strip()) > 0
    skip = ""
    if not present and not pull:
        where = (
            "docker images"
            if engine == "docker"
            else "containerd namespace %s" % namespace
        )
        skip = (
            "image %s is not on the node (%s) and ascend_runtime_verify_pull is false: load it, "
            "point ascend_runtime_verify_image at a local image, or set ascend_runtime_verify_pull "
            "to true" % (image, where)
        )
    return {"present": present, "skip": skip}


def check_output(engine: str, results: dict) -> str:
    """What the check container printed: the stdout of the engine's registered result."""
    return str(_of_engine(engine, results).get("stdout") or "")


def cri_plugin_state(lines) -> str:
    """The STATUS of the CRI plugin in ``ctr plugins ls id==cri`` (its lines): ``ok``,
    ``error``, or '' while containerd does not list it (the header line is skipped)."""
    states = [
        "ok" if _CRI_OK.search(line) else "error"
        for line in list(lines or [])[1:]
        if _CRI_OK.search(line) or _CRI_ERROR.search(line)
    ]
    if "ok" in states:
        return "ok"
    return "error" if states else ""


def containerd_restart(
    check_mode: bool, restart: dict, ready: dict, config_result: dict
) -> dict:
    """``{up, restore}`` after containerd was restarted for a changed config.toml: whether it
    came back (restarted, answered, CRI plugin ok; always in check mode, where nothing was
    restarted), and when not, how the previous file goes back: ``copy`` (from the backup the
    edit kept) or ``remove`` (there was no file before); '' when it came back."""
    ready = ready or {}
    up = bool(check_mode) or (
        _changed(restart)
        and ready.get("rc", 1) == 0
        and cri_plugin_state(ready.get("stdout_lines")) == "ok"
    )
    if up:
        restore = ""
    elif "backup_file" in (config_result or {}):
        restore = "copy"
    else:
        restore = "remove"
    return {"up": up, "restore": restore}


def containerd_failure(
    path: str,
    restart: dict,
    ready: dict,
    again: dict,
    config_result: dict,
    timeout,
    journal,
) -> str:
    """The refusal after containerd did not come back: the cause (the restart failed, no answer
    within ``timeout`` s, or the CRI plugin not ok), how the previous file went back, whether
    containerd answers again with it (``again``, the wait after the second restart), and the
    last lines of its journal."""
    ready = ready or {}
    again = again or {}
    if not _changed(restart):
        cause = str((restart or {}).get("msg") or "the restart failed")
    elif ready.get("rc", 1) != 0:
        cause = "it did not answer within %s s" % (timeout,)
    else:
        cause = "its CRI plugin is not ok: " + " ".join(
            str(line) for line in ready.get("stdout_lines") or []
        )
    cause = re.sub(r"\s+", " ", cause).strip()
    backup = str((config_result or {}).get("backup_file") or "")
    recovered = (
        again.get("rc", 1) == 0 and cri_plugin_state(again.get("stdout_lines")) == "ok"
    )
    return (
        "containerd did not come back after %s was changed for the Ascend runtime (%s). %s "
        "and containerd was restarted: it %s. The Ascend runtime is not configured: fix what "
        "containerd refuses (its log: %s) and run again."
        % (
            path,
            cause,
            ("The previous file was put back from " + backup)
            if backup
            else "The file did not exist before and was removed",
            "answers again with the previous configuration"
            if recovered
            else "still does not answer, see journalctl -u containerd",
            " | ".join(str(line) for line in journal or []),
        )
    )
