#!/usr/bin/env python3
"""Compare regorus's policy results with the real OPA engine.

Reads the JSON written by tests/integration/policy_differential.rs (policy sets: modules, tests, and cases
of input + regorus result) and, with PyPI's opa-golib-python-bindings:
  * evaluates data.honey.{allow,deny_reason,decision,requires} for every case and compares it
    with regorus (an OPA error or undefined `allow` must match a regorus error);
  * runs every test_* rule of the set's *_test.rego modules, which must be true.
Prints one line per mismatch and `N passed, N failed`; exits 1 on any failure.
"""
import json
import re
import sys

from opa_bindings import OpaEngine, OpaError, OpaUndefinedError

DECISIONS = {"allow", "deny", "require_approval"}


def opa_decision(engine, case_input):
    """OPA's answer in the shape of guarded-sh's PolicyDecision, or {"error": ...}."""
    values = {}
    for entry in ("allow", "deny_reason", "decision", "requires", "deny_reasons", "approval_reasons"):
        try:
            values[entry] = engine.eval_document(f"honey.{entry}", case_input)
        except OpaUndefinedError:
            values[entry] = None
        except OpaError as err:
            return {"error": f"opa:{getattr(err, 'code', 'error')}"}
    allow, reason, decision, requires = (values[k] for k in ("allow", "deny_reason", "decision", "requires"))
    denies, holds = values["deny_reasons"], values["approval_reasons"]
    if allow is None and (denies is None and holds is None or declares_allow(engine)):
        return {"error": "undefined"}
    if allow is None:
        allow = True  # no module defines allow: the reason sets decide alone
    for found in (denies, holds):
        if found is not None and not (isinstance(found, list) and all(isinstance(r, str) for r in found)):
            return {"error": "ill_typed"}
    ok = (
        isinstance(allow, bool)
        and (reason is None or isinstance(reason, str))
        and (decision is None or decision in DECISIONS)
        and (requires is None or (isinstance(requires, list) and all(isinstance(r, str) for r in requires)))
    )
    if not ok:
        return {"error": "ill_typed"}
    reason, decision = reason or "", decision or ""
    denies = sorted({r for r in denies or [] if r})
    holds = sorted({r for r in holds or [] if r})
    # guarded-sh's reading of the sets (src/policy/decision.rs, from_entries): strictest wins.
    denied = not allow or decision == "deny" or bool(denies)
    held = not denied and (decision == "require_approval" or bool(holds))
    extra = denies if denied else holds if held else []
    if extra:
        reason = "; ".join(([reason] if reason else []) + extra)
    if denied:
        allow = False
    elif held:
        decision = "require_approval"
    return {"allow": allow, "deny_reason": reason, "decision": decision, "requires": requires or []}


def declares_allow(engine):
    """Whether some module defines data.honey.allow (undefined then is an error, not a default)."""
    return getattr(engine, "declared_allow", True)


def same(regorus, opa):
    if "error" in regorus or "error" in opa:
        return ("error" in regorus) == ("error" in opa)
    return regorus == opa


def main(path):
    with open(path) as f:
        sets = json.load(f)
    passed = failed = 0
    for policy_set in sets:
        name = policy_set["set"]
        with OpaEngine() as engine:
            for module in policy_set["modules"]:
                engine.add_policy(module["name"], module["source"])
            engine.declared_allow = any(
                re.search(r"^(default\s+)?allow\b", m["source"], re.M) for m in policy_set["modules"]
            )
            for case in policy_set["cases"]:
                opa = opa_decision(engine, case["input"])
                if same(case["result"], opa):
                    passed += 1
                else:
                    failed += 1
                    raw = case["input"].get("command", {}).get("raw", "")
                    print(f"MISMATCH {name} {raw!r}: regorus={case['result']} opa={opa}")
        if not policy_set["tests"]:
            continue
        with OpaEngine() as engine:
            for module in policy_set["modules"] + policy_set["tests"]:
                engine.add_policy(module["name"], module["source"])
            for test in policy_set["tests"]:
                package = re.search(r"^package\s+(\S+)", test["source"], re.M).group(1)
                names = dict.fromkeys(re.findall(r"^(test_\w+)", test["source"], re.M))
                for rule in names:
                    try:
                        ok = engine.eval_document(f"{package}.{rule}") is True
                    except OpaError as err:
                        ok, rule = False, f"{rule} ({err})"
                    if ok:
                        passed += 1
                    else:
                        failed += 1
                        print(f"TEST FAILED under OPA: {name} {test['name']} {package}.{rule}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "target/policy-oracle/cases.json"))
