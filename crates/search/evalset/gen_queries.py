"""Writes queries.json from the hand-written batches in queries/ (file-name order): each query
numbered, and every third one (index % 3 == 2) held out from tuning."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    queries = []
    folder = os.path.join(HERE, "queries")
    for file in sorted(os.listdir(folder)):
        if file.endswith(".py"):
            scope = {}
            with open(os.path.join(folder, file), encoding="utf-8") as f:
                exec(f.read(), scope)
            queries.extend(scope["QUERIES"])
    out = []
    for i, (query, targets) in enumerate(queries):
        split = "held_out" if i % 3 == 2 else "tune"
        out.append({"id": f"q{i + 1:03d}", "query": query, "targets": targets, "split": split})
    with open(os.path.join(HERE, "queries.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"{len(out)} queries, {sum(q['split'] == 'held_out' for q in out)} held out")


if __name__ == "__main__":
    main()
