import feats, numpy as np, sys, pickle, os
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import roc_auc_score
train_files = sys.argv[1].split(',')
cases = [c for f in train_files for c in feats.load(f) if 'tool' in c]
y = np.array([c['label'] == 'poisoned' for c in cases])
hb = np.array([(not yy) and c.get('hard', False) for c, yy in zip(cases, y)])
cache = '/tmp/clf-cache.pkl'
C = pickle.load(open(cache, 'rb')) if os.path.exists(cache) else {}
models = {'potion': feats.Potion()}
if 'minilm' in sys.argv: models['minilm'] = feats.MiniLM()
def emb(key, texts):
    todo = list({t for t in texts if (key, t) not in C})
    if todo:
        for t, v in zip(todo, models[key].embed(todo)): C[(key, t)] = v
    return np.array([C[(key, t)] for t in texts])
chunks = [feats.chunks(c['tool']) for c in cases]
owner = np.array([i for i, ch in enumerate(chunks) for _ in ch])
flat = [t for ch in chunks for t in ch]
X = {k: emb(k, flat) for k in models}
W = {k: emb(k, [feats.whole(c['tool']) for c in cases]) for k in models}
pickle.dump(C, open(cache, 'wb'))

def mil_scores(Xc, tr, te, Cc, rounds, keep):
    trs = set(tr.tolist()); tes = set(te.tolist())
    tr_mask = np.array([o in trs for o in owner]); te_mask = np.array([o in tes for o in owner])
    lab = y[owner].copy()
    for r in range(rounds):
        m = LogisticRegression(C=Cc, max_iter=3000, class_weight='balanced').fit(Xc[tr_mask], lab[tr_mask])
        if r == rounds - 1: break
        s = m.decision_function(Xc)
        # in each poisoned training def keep only the top `keep` chunks positive
        lab = np.zeros(len(owner), bool)
        for i in tr:
            if y[i]:
                idx = np.where(owner == i)[0]
                lab[idx[np.argsort(-s[idx])[:keep]]] = True
    s = m.decision_function(Xc)
    out = np.full(len(cases), -1e9)
    for j in np.where(te_mask)[0]:
        out[owner[j]] = max(out[owner[j]], s[j])
    return out[te]

def evaluate(name, make):
    aucs, rec, hbr = [], [], []
    for seed in range(3):
        scores = np.zeros(len(cases))
        for tr, te in StratifiedKFold(5, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
            scores[te] = make(tr, te)
        aucs.append(roc_auc_score(y, scores)); thr = np.quantile(scores[~y], 0.98)
        rec.append((scores[y] > thr).mean()); hbr.append((scores[hb] > thr).mean())
    print(f'{name:<34} AUC {np.mean(aucs):.3f}  recall@2%FPR {np.mean(rec):.3f}  hardbenign FP {np.mean(hbr):.3f}', flush=True)

for k in models:
    for Cc in (1.0, 10.0):
        for rounds, keep in ((1, 0), (3, 1), (3, 2)):
            evaluate(f'{k} chunks C={Cc} mil={rounds}/{keep}', lambda tr, te: mil_scores(X[k], tr, te, Cc, rounds, keep))
        # chunk + whole context features: chunk vector concat whole vector
        Xcw = np.hstack([X[k], W[k][owner]])
        evaluate(f'{k} chunk+whole C={Cc} mil=3/1', lambda tr, te: mil_scores(Xcw, tr, te, Cc, 3, 1))
