import feats, numpy as np, sys, pickle, os
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import roc_auc_score
from sklearn.feature_extraction.text import TfidfVectorizer

train_files = sys.argv[1].split(',')
cases = [c for f in train_files for c in feats.load(f)]
cases = [c for c in cases if 'tool' in c]
y = np.array([c['label'] == 'poisoned' for c in cases])
hard_benign = np.array([(not yy) and c.get('hard', False) for c, yy in zip(cases, y)])
print(len(cases), 'cases', y.sum(), 'poisoned')

cache = '/tmp/clf-cache.pkl'
C = pickle.load(open(cache, 'rb')) if os.path.exists(cache) else {}
def emb(model, texts, key):
    todo = [t for t in texts if (key, t) not in C]
    if todo:
        for t, v in zip(todo, model.embed(todo)): C[(key, t)] = v
    return np.array([C[(key, t)] for t in texts])

P = feats.Potion(); M = feats.MiniLM() if 'minilm' in sys.argv else None
def defs_feats(model, key):
    whole = emb(model, [feats.whole(c['tool']) for c in cases], key)
    mx = []; mean = []
    for c in cases:
        ch = emb(model, feats.chunks(c['tool']), key)
        mx.append(ch.max(0)); mean.append(ch.mean(0))
    return whole, np.array(mx), np.array(mean)
pw, pmx, pmn = defs_feats(P, 'potion')
sets = {'potion_whole': pw, 'potion_whole+max': np.hstack([pw, pmx]), 'potion_mean+max': np.hstack([pmn, pmx])}
if M:
    mw = emb(M, [feats.whole(c['tool']) for c in cases], 'minilm')
    sets.update({'minilm_whole': mw, 'both_whole': np.hstack([pw, mw])})
pickle.dump(C, open(cache, 'wb'))
texts = [feats.whole(c['tool']) for c in cases]

def evaluate(name, make):
    aucs = []; rec_at = []; hb = []
    for seed in range(3):
        skf = StratifiedKFold(5, shuffle=True, random_state=seed)
        scores = np.zeros(len(cases))
        for tr, te in skf.split(np.zeros(len(y)), y):
            scores[te] = make(tr, te)
        aucs.append(roc_auc_score(y, scores))
        # threshold: 2% of benign above it
        thr = np.quantile(scores[~y], 0.98)
        rec_at.append((scores[y] > thr).mean()); hb.append((scores[hard_benign] > thr).mean())
    print(f'{name:<22} AUC {np.mean(aucs):.3f}  recall@2%FPR {np.mean(rec_at):.3f}  hardbenign FP {np.mean(hb):.3f}')

for name, X in sets.items():
    for Cc in (1.0, 10.0):
        def make(tr, te, X=X, Cc=Cc):
            m = LogisticRegression(C=Cc, max_iter=3000, class_weight='balanced').fit(X[tr], y[tr])
            return m.decision_function(X[te])
        evaluate(f'{name} C={Cc}', make)
from scipy.sparse import hstack as sh, csr_matrix
def combo(tr, te):
    v = TfidfVectorizer(analyzer='word', ngram_range=(1, 2), sublinear_tf=True)
    Xtr = sh([v.fit_transform([texts[i] for i in tr]), csr_matrix(pw[tr])]).tocsr()
    Xte = sh([v.transform([texts[i] for i in te]), csr_matrix(pw[te])]).tocsr()
    m = LogisticRegression(C=10, max_iter=3000, class_weight='balanced').fit(Xtr, y[tr])
    return m.decision_function(Xte)
evaluate('tfidf_word+potion', combo)
for an in ('word', 'char_wb'):
    def make(tr, te, an=an):
        v = TfidfVectorizer(analyzer=an, ngram_range=(1, 2) if an == 'word' else (3, 5), sublinear_tf=True, min_df=1)
        Xtr = v.fit_transform([texts[i] for i in tr])
        m = LogisticRegression(C=10, max_iter=3000, class_weight='balanced').fit(Xtr, y[tr])
        return m.decision_function(v.transform([texts[i] for i in te]))
    evaluate(f'tfidf_{an}', make)
