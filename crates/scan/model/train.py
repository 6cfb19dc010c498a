"""Trains the scanner's learned classifier and writes `classifier.bin` and `cases.json` beside
this script. A linear model (logistic regression) over hashed word unigrams and bigrams of a
tool definition's text, weighted by sublinear term frequency and inverse document frequency
and scaled to unit length; the Rust side (src/learned.rs) computes the same features.

Trained only on the training sets (corpus/tune, fresh, train_a, train_b, train_b_results,
train_c, train_d, train_d_results); never on heldout, fresh2 or blind3. The thresholds come from 5-fold out-of-fold scores on the
training sets: `warn` lets through at most 2 % of benign and of hard-benign definitions,
`high` at most 0.5 %.

  python3 -m venv /tmp/ml && /tmp/ml/bin/pip install numpy scipy scikit-learn==1.9.1
  /tmp/ml/bin/python crates/scan/model/train.py [--cv]
"""
import json, math, os, struct, sys, unicodedata
import numpy as np
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import roc_auc_score

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, '..', 'corpus')
TRAIN = ['tune.jsonl', 'fresh.jsonl', 'train_a.jsonl', 'train_b.jsonl', 'train_b_results.jsonl',
         'train_c.jsonl', 'train_d.jsonl', 'train_d_results.jsonl']
NEVER = {'heldout.jsonl', 'fresh2.jsonl', 'blind3.jsonl'}
BITS = 16
C = 10.0
FNV_OFFSET, FNV_PRIME, MASK64 = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1
# Kana, CJK ideographs, Hangul: one token per character (these scripts have no spaces).
SINGLE = [(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF)]


def fnv1a(text):
    h = FNV_OFFSET
    for b in text.encode('utf-8'):
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def tokens(text):
    """NFKC, lower case; runs of letters, digits and marks; CJK characters one by one."""
    out, cur = [], []
    for ch in unicodedata.normalize('NFKC', text).lower():
        cp = ord(ch)
        if any(a <= cp <= b for a, b in SINGLE):
            if cur:
                out.append(''.join(cur)); cur = []
            out.append(ch)
        elif unicodedata.category(ch)[0] in 'LNM':
            cur.append(ch)
        elif cur:
            out.append(''.join(cur)); cur = []
    if cur:
        out.append(''.join(cur))
    return out


def grams(text):
    """Unigrams and bigrams of each line (a definition's strings never pair across lines)."""
    out = []
    for line in text.split('\n'):
        ws = tokens(line)
        out += ['w ' + w for w in ws] + ['b ' + a + ' ' + b for a, b in zip(ws, ws[1:])]
    return out


def counts(text):
    d = {}
    for g in grams(text):
        k = fnv1a(g) & ((1 << BITS) - 1)
        d[k] = d.get(k, 0) + 1
    return d


def definition_text(tool):
    """Every string a model reads, in document order, one per line (as src/learned.rs)."""
    out = []

    def walk(v, key):
        if key in ('uiResource', '_meta'):
            return
        if isinstance(v, str):
            if key != 'type':
                out.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, dict):
            for k, x in v.items():
                if key == 'properties':
                    out.append(k)
                walk(x, k)
    walk(tool, '')
    return '\n'.join(out)


def case_text(c):
    return definition_text(c['tool']) if 'tool' in c else c['text']


def matrix(texts):
    rows, cols, vals = [], [], []
    for i, t in enumerate(texts):
        for k, n in counts(t).items():
            rows.append(i); cols.append(k); vals.append(1.0 + math.log(n))
    return csr_matrix((vals, (rows, cols)), shape=(len(texts), 1 << BITS))


def idf(X):
    df = np.asarray((X > 0).sum(0)).ravel()
    return (np.log((1 + X.shape[0]) / (1 + df)) + 1.0).astype(np.float32)


def weigh(X, idf_v):
    X = csr_matrix(X.multiply(idf_v))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(1)).ravel())
    norms[norms == 0] = 1.0
    return csr_matrix(X.multiply(1.0 / norms[:, None]))


def fit(X, y):
    iv = idf(X)
    model = LogisticRegression(C=C, max_iter=5000, class_weight='balanced').fit(weigh(X, iv), y)
    return iv, model


def load(name):
    with open(os.path.join(CORPUS, name), encoding='utf-8') as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    assert not NEVER & set(TRAIN)
    present = [n for n in TRAIN if os.path.exists(os.path.join(CORPUS, n))]
    print('training sets:', ', '.join(present))
    cases = [c for name in present for c in load(name)]
    texts = [case_text(c) for c in cases]
    y = np.array([c['label'] == 'poisoned' for c in cases])
    hard_benign = np.array([(not p) and c.get('hard', False) for c, p in zip(cases, y)])
    X = matrix(texts)
    oof = np.zeros(len(y))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        iv, model = fit(X[train], y[train])
        oof[test] = model.predict_proba(weigh(X[test], iv))[:, 1]
    warn = max(np.quantile(oof[~y], 0.98), np.quantile(oof[hard_benign], 0.98))
    high = max(np.quantile(oof[~y], 0.995), np.quantile(oof[hard_benign], 0.995))
    print(f'{len(y)} training cases ({y.sum()} poisoned); out-of-fold AUC {roc_auc_score(y, oof):.3f}')
    print(f'threshold warn {warn:.4f}: recall {(oof[y] >= warn).mean():.3f}, benign FP {(oof[~y] >= warn).mean():.3f}, hard benign FP {(oof[hard_benign] >= warn).mean():.3f}')
    print(f'threshold high {high:.4f}: recall {(oof[y] >= high).mean():.3f}, benign FP {(oof[~y] >= high).mean():.3f}')
    if '--cv' in sys.argv:
        return
    iv, model = fit(X, y)
    w = model.coef_[0].astype(np.float32)
    with open(os.path.join(HERE, 'classifier.bin'), 'wb') as f:
        f.write(b'SBSCAN1\0')
        f.write(struct.pack('<Ifff', BITS, model.intercept_[0], warn, high))
        f.write(iv.astype('<f4').tobytes())
        f.write(w.astype('<f4').tobytes())
    # Cases for the Rust side's cross-check: its score must match this script's.
    picks = [cases[i] for i in range(0, len(cases), max(1, len(cases) // 40))]
    sample = [case_text(c) for c in picks] + ['', 'Ünïcödé ﬁle ＡＰＩ key 東京タワー 한국어 текст नमस्ते']
    probs = model.predict_proba(weigh(matrix(sample), iv))[:, 1]
    with open(os.path.join(HERE, 'cases.json'), 'w', encoding='utf-8') as f:
        json.dump([{'text': t, 'score': float(p)} for t, p in zip(sample, probs)], f, ensure_ascii=False, indent=0)
    print('wrote classifier.bin and cases.json')


if __name__ == '__main__':
    main()
