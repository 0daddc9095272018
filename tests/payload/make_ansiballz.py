#!/usr/bin/env python3
"""Writes the AnsiballZ wrapper the installed ansible-core builds for one task, without running
it: make_ansiballz.py MODULE ARGS_JSON OUT [no_log]. The test table's payloads come from here."""
import json
import sys

from ansible.executor.module_common import modify_module
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import module_loader
from ansible.template import Templar
from ansible.release import __version__


def main():
    name, args_json, out = sys.argv[1:4]
    no_log = len(sys.argv) > 4 and sys.argv[4] == "no_log"
    path = module_loader.find_plugin(name)
    if path is None:
        sys.exit(f"no module {name}")
    args = json.loads(args_json)
    # The internal arguments the controller adds to every task (ansible.plugins.action).
    args.update({
        "_ansible_check_mode": False,
        "_ansible_no_log": no_log,
        "_ansible_debug": False,
        "_ansible_diff": False,
        "_ansible_verbosity": 0,
        "_ansible_version": __version__,
        "_ansible_module_name": name,
    })
    data, _style, _shebang = modify_module(name, path, args, Templar(loader=DataLoader()),
                                             task_vars={"ansible_python_interpreter": "/usr/bin/python3"},
                                             module_compression="ZIP_DEFLATED")
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
