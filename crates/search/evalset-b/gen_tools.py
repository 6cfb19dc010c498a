#!/usr/bin/env python3
"""Build evalset-b/tools.json from the generator modules in evalset-b/tools/.

Every module in evalset-b/tools/ is imported in file-name order; each module
that defines TOOLS contributes its list. The output is sorted by server
(stable, so each server keeps its modules' order) and written with indent=1.
"""
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS_DIR = os.path.join(HERE, "tools")


def main():
    sys.path.insert(0, TOOLS_DIR)
    sys.dont_write_bytecode = True
    tools = []
    for fname in sorted(os.listdir(TOOLS_DIR)):
        if not fname.endswith(".py"):
            continue
        mod = importlib.import_module(fname[:-3])
        tools.extend(getattr(mod, "TOOLS", []))
    tools.sort(key=lambda tool: tool["server"])
    out = os.path.join(HERE, "tools.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(tools, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    servers = sorted({tool["server"] for tool in tools})
    print(f"wrote {out}: {len(tools)} tools, {len(servers)} servers")


if __name__ == "__main__":
    main()
