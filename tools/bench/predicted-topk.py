# Geomean text+data change vs -Oz on a swept corpus when each module compiles the first K
# lists of a ranking (and -Oz): the predictor's (predict-passes --json --top N), the coreset's
# own order (no predictor), and the best coreset list per module (oracle).
import json, math, sys
sweep = json.load(open(sys.argv[1]))
coreset = json.load(open(sys.argv[2]))
pred = {m['name']: [r['pipeline'] for r in m.get('ranked', [])] for m in json.load(open(sys.argv[3]))['modules']}
only = set(open(sys.argv[4]).read().split()) if len(sys.argv) > 4 else None
col = {l['pipeline']: i for i, l in enumerate(sweep['lists'])}
langs = {l['pipeline']: l['languages'] for l in coreset['lists']}
order = [l['pipeline'] for l in coreset['lists']]
def td(o): return o[0] + o[1] + o[2]
def gain(m, p):
    if 'c++' not in langs[p] and m['cxx']: return None
    o = m['lists'][col[p]]
    if o is None: return None
    return math.log(td(m['oz']) / td(o)) if td(o) > 0 and td(m['oz']) > 0 else 0.0
mods = [m for m in sweep['modules'] if only is None or m['name'] in only]
def geo(rank, K):
    s = 0
    for m in mods:
        g = [gain(m, p) for p in rank(m)[:K]]
        s += max([0.0] + [x for x in g if x is not None])
    return 100 * (math.exp(-s / len(mods)) - 1)
def ir(rank, K):
    # IR instruction count change of the chosen list (or -Oz), summed
    oz = tot = 0
    for m in mods:
        best, bo = 0.0, m['oz']
        for p in rank(m)[:K]:
            g = gain(m, p)
            if g is not None and g > best: best, bo = g, m['lists'][col[p]]
        oz += m['oz'][4]; tot += bo[4]
    return 100 * (tot / oz - 1)
static = lambda m: [p for p in order if 'c++' in langs[p] or not m['cxx']]
predicted = lambda m: pred[m['name']]
print("modules", len(mods))
for K in (1, 2, 3, 5, 10, 20, 45, 50):
    print("K=%2d predictor %+.2f%% (IR %+.2f%%)  coreset order %+.2f%%  oracle(all coreset) %+.2f%%" % (
        K, geo(predicted, K), ir(predicted, K), geo(static, K), geo(static, 100)))
