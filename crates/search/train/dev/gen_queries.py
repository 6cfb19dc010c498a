#!/usr/bin/env python3
"""Builds queries.json from queries_src.txt (flag | query | tool names)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
tools = json.load(open(os.path.join(HERE, "tools.json")))
full = {t["name"]: t["server"] + "/" + t["name"] for t in tools}
out = []
for line in open(os.path.join(HERE, "queries_src.txt")):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    flag, query, names = [p.strip() for p in line.split(" | ")]
    out.append({
        "id": "dev%03d" % (len(out) + 1),
        "query": query,
        "targets": [full[n] for n in names.split()],
        "paraphrase": flag == "P",
    })
with open(os.path.join(HERE, "queries.json"), "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(len(out), "queries")
