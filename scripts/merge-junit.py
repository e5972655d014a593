#!/usr/bin/env python3
"""Merges the JUnit XML reports of `inquiry-model conform --shard k/n` runs
into one report of the whole run (spec/conform-protocol.md "Running at
scale"). Standard library only.

    python3 scripts/merge-junit.py shard-*.xml > conform.xml

Test suites of one name (`vectors`, `generated <profile> seed <S>`) become
one suite holding every shard's test cases. A test case that appears in
several shards (a vector skipped for its profile, language or pin is listed
by every shard) is kept once, a case that ran before one only skipped.
Counts (tests, failures, errors, skipped) are recounted from the merged
cases; times are summed. Exit 2 on a file that is not a conform report.
"""

import sys
import xml.etree.ElementTree as ET


def outcome(case):
    """0 ran, 1 skipped: a case that ran wins over a skipped listing."""
    return 1 if case.find("skipped") is not None else 0


def main(paths):
    suites = {}  # name -> {(classname, name): element}
    order = []
    time = 0.0
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            sys.stderr.write("merge-junit: %s: %s\n" % (path, e))
            return 2
        if root.tag != "testsuites":
            sys.stderr.write("merge-junit: %s: not a conform JUnit report\n" % path)
            return 2
        time = max(time, float(root.get("time", "0")))
        for suite in root.findall("testsuite"):
            name = suite.get("name")
            if name not in suites:
                suites[name] = {}
                order.append(name)
            cases = suites[name]
            for case in suite.findall("testcase"):
                key = (case.get("classname"), case.get("name"))
                if key not in cases or outcome(case) < outcome(cases[key]):
                    cases[key] = case
    out = ET.Element("testsuites", name="inquiry-model conform")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for name in order:
        cases = list(suites[name].values())
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        for k in totals:
            totals[k] += counts[k]
        seconds = sum(float(c.get("time", "0")) for c in cases)
        suite = ET.SubElement(out, "testsuite", name=name,
                              **{k: str(v) for k, v in counts.items()},
                              time="%.3f" % seconds)
        suite.extend(cases)
    for k, v in totals.items():
        out.set(k, str(v))
    out.set("time", "%.3f" % time)
    ET.indent(out, space="  ")
    sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    sys.stdout.write(ET.tostring(out, encoding="unicode") + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("usage: merge-junit.py SHARD.xml...\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
