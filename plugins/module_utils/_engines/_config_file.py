# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# PRIVATE to the cubestudio.ascend collection: no compatibility promise, may change without
# notice. How the engine-config modules (docker_runtime_config, containerd_runtime_config)
# read and replace an engine's configuration file: the new content is staged in a temporary
# file beside the old one, checked by the caller, then moved over it after a backup. Every
# error ends in module.fail_json with the path and the reason.

import os
import tempfile

from ansible.module_utils.common.text.converters import to_bytes, to_native


def read_text(module, path, not_text_hint):
    """The file's content as text, or None when it does not exist.

    A directory, an unreadable file or one that is not UTF-8 fails the module; not_text_hint
    completes the message of the last case ("Docker cannot read it either", ...).
    """
    if not os.path.exists(path):
        return None
    if os.path.isdir(path):
        module.fail_json(msg="%s is a directory, not a file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        module.fail_json(msg="cannot read %s: %s" % (path, to_native(exc)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        module.fail_json(
            msg="%s is not UTF-8 text (%s); %s" % (path, exc, not_text_hint)
        )


def stage(module, path, content):
    """Write content to a temporary file in the directory of path (created if missing)."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory)
        except OSError as exc:
            module.fail_json(msg="cannot create %s: %s" % (directory, to_native(exc)))
    fd, tmp = tempfile.mkstemp(
        prefix=".%s." % os.path.basename(path), suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(to_bytes(content))
    except OSError as exc:
        os.unlink(tmp)
        module.fail_json(
            msg="cannot write a temporary file in %s: %s" % (directory, to_native(exc))
        )
    return tmp


def replace(module, tmp, path, backup, result):
    """Move the staged file over path, keeping a backup of an existing file when asked.

    The backup's path goes to result["backup_file"].
    """
    if backup and os.path.exists(path):
        result["backup_file"] = module.backup_local(path)
    module.atomic_move(tmp, path, unsafe_writes=module.params["unsafe_writes"])


def read_record(module, path, load_record, error_class):
    """The original-content record at path (module_utils._engines._engine_original), None if missing."""
    if not path or not os.path.exists(path):
        return None
    text = read_text(module, path, "it is not a record of this collection")
    try:
        return load_record(text, path)
    except error_class as exc:
        module.fail_json(msg=str(exc))


def write_record(module, path, text):
    """Write (text) or remove (None) the original-content record at path, owned by root, 0600."""
    if text is None:
        if os.path.exists(path):
            try:
                os.unlink(path)
            except OSError as exc:
                module.fail_json(msg="cannot remove %s: %s" % (path, to_native(exc)))
        return
    tmp = stage(module, path, text)
    module.atomic_move(tmp, path)
    os.chmod(path, 0o600)


def remove(module, path, backup, result):
    """Remove path (the engine had no file before), keeping a backup when asked."""
    if backup:
        result["backup_file"] = module.backup_local(path)
    try:
        os.unlink(path)
    except OSError as exc:
        module.fail_json(msg="cannot remove %s: %s" % (path, to_native(exc)))
