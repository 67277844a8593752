"""junit.xml: one testcase per case of the with_skill arm, plus one for each minimum lift (and
one for each until-decided decision, which then is the verdict); the verdict's words as properties."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.comparison.verdict import on_estimate, rule, until_decided_verdict, verdict_text
from skill_eval.review.render.format import ReportFormat, ReportInput
from skill_eval.review.render.markdown import pvalue, signed


def junit_xml(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()) -> str:
    root = ET.Element("testsuites", name="skill-eval")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for bench in benches:
        suite = ET.SubElement(root, "testsuite", name=f"{bench['skill']} [{bench['model']}]")
        props = ET.SubElement(suite, "properties")
        lift = bench["lift"]
        for name, value in (("suite", bench["suite"]), ("lift", lift["pass_rate"]),
                            ("p_value", lift["p_value"]), ("ci95", lift["ci95"]),
                            ("lift_cases", lift["cases"]), ("minimum_lift", lift["minimum_lift"]),
                            ("indeterminate", lift["indeterminate"]), ("verdict", bench["verdict"]),
                            ("decided_by", rule(bench)), ("verdict_text", verdict_text(bench))):
            ET.SubElement(props, "property", name=name, value="" if value is None else str(value))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        classname = f"{bench['skill']}.{bench['model']}"
        for case in bench["cases"]:
            arm = case["with_skill"]
            tc = ET.SubElement(suite, "testcase", name=str(case["id"]), classname=classname)
            counts["tests"] += 1
            if arm["errors"]:
                counts["errors"] += 1
                err = ET.SubElement(tc, "error", message=f"{arm['errors']} of {arm['runs']} runs errored")
                err.text = "\n".join(arm.get("error_messages", []))
            elif arm.get("not_run") and not arm["graded"]:
                ET.SubElement(tc, "skipped", message=f"{arm['not_run']} of {arm['runs']} runs not run yet")
            elif arm["graded"] and arm["passed"] < arm["graded"]:
                counts["failures"] += 1
                fail = ET.SubElement(tc, "failure", message=f"{arm['graded'] - arm['passed']} of "
                                     f"{arm['graded']} runs failed a required check")
                fail.text = "\n".join(f"iteration {f['iteration']}: {f['id']}: {f['evidence']}"
                                      for f in arm.get("failed_checks", []))
            if case["flags"]:
                ET.SubElement(tc, "system-out").text = "flags: " + ", ".join(case["flags"])
        until_decided = bench.get("adaptive") if until_decided_verdict(bench) else None
        if lift["minimum_lift"] is not None:
            tc = ET.SubElement(suite, "testcase", name="minimum_lift", classname=classname)
            counts["tests"] += 1
            if until_decided:
                ET.SubElement(tc, "skipped", message="not the verdict: --until-decided decides it")
            elif not lift["met"]:
                counts["failures"] += 1
                ET.SubElement(tc, "failure", message=f"lift {signed(lift['pass_rate'])} below minimum "
                              f"{signed(lift['minimum_lift'])} (n={lift['cases']}, "
                              f"p={pvalue(lift['p_value'])}): {verdict_text(bench)}")
            elif bench["verdict"] == "undecided":  # gate: decided, a lift not significant yet
                counts["failures"] += 1
                ET.SubElement(tc, "failure", message=verdict_text(bench))
            elif on_estimate(bench):  # passes the job, but says it is not evidence yet
                ET.SubElement(tc, "system-out").text = verdict_text(bench)
        if until_decided:
            tc = ET.SubElement(suite, "testcase", name="sequential_decision", classname=classname)
            counts["tests"] += 1
            if until_decided["decision"] != "pass":
                counts["failures"] += 1
                ET.SubElement(tc, "failure", message=f"until decided: {verdict_text(bench)}")
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _junit(report: ReportInput) -> str:
    return junit_xml(report.benches, report.moved)


JUNIT = ReportFormat("junit", "junit.xml", _junit, every_run=True)
