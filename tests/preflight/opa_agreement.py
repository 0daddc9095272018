#!/usr/bin/env python3
"""Check the `opa` column of tests/preflight/cases.tsv against the real OPA engine.

For every row whose opa column is not `-`, loads the fixture's policies/*.rego (not the
*_test.rego files) into OPA (PyPI's opa-golib-python-bindings, as tests/oracle/run.sh installs
it) and evaluates data.honey on three inputs: {}, {"x": true}, {"x": true, "y": true}.
  load_error       OPA refuses the policy when preparing it (every input fails the same way)
  eval_error       every input fails in evaluation
  eval_error_when  {} evaluates, and some input that defines more rules fails
  accepts          every input evaluates
Prints one line per row and `N agree, M disagree`; exits 1 on any disagreement.
Usage: opa_agreement.py [tests/preflight]   (run with the venv of tests/oracle/run.sh)
"""
import glob
import os
import sys

from opa_bindings import OpaEngine, OpaError

INPUTS = [{}, {"x": True}, {"x": True, "y": True}]


def behaviour(policies):
    """What OPA does with the modules of `policies`: one of the column's words."""
    outcomes = []
    with OpaEngine() as engine:
        for path in sorted(glob.glob(os.path.join(policies, "*.rego"))):
            if path.endswith("_test.rego"):
                continue
            try:
                engine.add_policy(os.path.basename(path), open(path).read())
            except OpaError:
                return "load_error"
        for case in INPUTS:
            try:
                engine.eval_document("honey", case)
                outcomes.append("ok")
            except OpaError as err:
                code = getattr(err, "code", "")
                if code in ("prepare_error", "parse_error", "compile_error"):
                    return "load_error"
                outcomes.append(code or "error")
    if all(o == "ok" for o in outcomes):
        return "accepts"
    if all(o != "ok" for o in outcomes):
        return "eval_error"
    if outcomes[0] == "ok":
        return "eval_error_when"
    return "mixed:" + ",".join(outcomes)


def main(base):
    agree = disagree = 0
    with open(os.path.join(base, "cases.tsv")) as table:
        for number, line in enumerate(table, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            name, fixture, opa = fields[0], fields[1], fields[7]
            if opa == "-":
                continue
            policies = os.path.join(base, "fixtures", fixture, "policies")
            got = behaviour(policies)
            if got == opa:
                agree += 1
                print(f"agree    cases.tsv:{number} {name}: {got}")
            else:
                disagree += 1
                print(f"DISAGREE cases.tsv:{number} {name}: table says {opa}, OPA {got}")
    print(f"{agree} agree, {disagree} disagree")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))))
