#!/usr/bin/env python3
"""Concatenate evalset-b/queries/batch_*.json (file-name order) into evalset-b/queries.json.

Queries are numbered q001, q002, ... in the combined order; every third
query (index % 3 == 2, counting from 0) is "held_out", the rest "tune".
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH_DIR = os.path.join(HERE, "queries")


def main():
    combined = []
    for fname in sorted(os.listdir(BATCH_DIR)):
        if fname.startswith("batch_") and fname.endswith(".json"):
            with open(os.path.join(BATCH_DIR, fname), encoding="utf-8") as fh:
                combined.extend(json.load(fh))
    out = []
    for i, q in enumerate(combined):
        out.append({
            "id": f"q{i + 1:03d}",
            "query": q["query"],
            "targets": q["targets"],
            "split": "held_out" if i % 3 == 2 else "tune",
        })
    path = os.path.join(HERE, "queries.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    held = sum(1 for q in out if q["split"] == "held_out")
    print(f"wrote {path}: {len(out)} queries ({held} held out)")


if __name__ == "__main__":
    main()
