# What a pool's lists can give on a swept corpus with K lists a module (K + 1 compiles: each
# with the -Oz backup, so never larger than -Oz), to tell a short pool from a weak ranking:
#   oracle order  the K lists chosen greedily on this very corpus (as select-coreset chooses):
#                 no fixed order of K lists does much better (within 1 - 1/e)
#   best of pool  each module's best list of the whole pool (a perfect ranking, any K)
# Geometric-mean .text+.data change vs -Oz, and the IR instruction count change (summed) of the
# lists those choose. Lists the sweep's gate rejected for a module's language are not used.
# Usage: python3 tools/bench/pool-oracle.py SWEEP.json [K ...]
import json, math, sys
sweep = json.load(open(sys.argv[1]))
ks = [int(k) for k in sys.argv[2:]] or [1, 2, 3, 5, 10, 20, 45]
lists, mods = sweep["lists"], sweep["modules"]
def size(o): return o[0] + o[1] + o[2]
def usable(gate, cxx):
    return gate is not None and (gate["passed"] or (gate["cxx_link_only"] and not cxx))
gains = []  # gains[m][l]: log(-Oz size / list size), None where unusable
for m in mods:
    row = []
    for l, o in zip(lists, m["lists"]):
        ok = o is not None and usable(l.get("gate"), m["cxx"]) and size(o) > 0
        row.append(math.log(size(m["oz"]) / size(o)) if ok else None)
    gains.append(row)
def best_of(row, chosen):
    best, at = 0.0, None
    for l in chosen:
        if row[l] is not None and row[l] > best: best, at = row[l], l
    return best, at
def figures(chosen_for):
    total, oz_ir, ir = 0.0, 0, 0
    for m, row in zip(mods, gains):
        gain, at = best_of(row, chosen_for(row))
        total += gain
        oz_ir += m["oz"][4]
        ir += m["lists"][at][4] if at is not None else m["oz"][4]
    return 100 * (math.exp(-total / len(mods)) - 1), 100 * (ir / oz_ir - 1)
order = []  # greedy maximum coverage
covered = [0.0] * len(mods)
while len(order) < max(ks):
    add = [sum(max(0.0, (row[l] or 0.0) - c) for row, c in zip(gains, covered)) for l in range(len(lists))]
    l = max(range(len(lists)), key=lambda i: (add[i], -i))
    if add[l] <= 0: break
    order.append(l)
    covered = [max(c, row[l] or 0.0) for row, c in zip(gains, covered)]
everything = list(range(len(lists)))
print("%d modules, %d lists" % (len(mods), len(lists)))
print("best of pool: %+.2f%% .text+.data (IR %+.2f%%)" % figures(lambda row: everything))
for k in ks:
    print("K=%2d oracle order %+.2f%% (IR %+.2f%%)" % ((k,) + figures(lambda row: order[:k])))
