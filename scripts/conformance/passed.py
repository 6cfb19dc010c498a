"""Prints the conformance scenarios a run passed, one per line: those of the run's output
folder (`-o DIR`: one `server-SCENARIO-TIMESTAMP/checks.json` each) with no failed check.

Usage: passed.py DIR
"""

import json
import pathlib
import re
import sys

for checks in sorted(pathlib.Path(sys.argv[1]).glob("*/checks.json")):
    scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", checks.parent.name)
    if not any(c.get("status") == "FAILURE" for c in json.loads(checks.read_text())):
        print(scenario)
