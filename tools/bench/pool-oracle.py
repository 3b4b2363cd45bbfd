# What a pool's lists can give on a swept corpus with K lists a module (K + 1 compiles: each
# with the -Oz backup, so never larger than -Oz), to tell a short pool from a weak ranking:
#   oracle order  the K lists chosen greedily on this very corpus (as select-coreset chooses):
#                 no fixed order of K lists does much better (within 1 - 1/e)
#   best of pool  each module's best list of the whole pool (a perfect ranking, any K)
# Geometric-mean .text+.data change vs -Oz, and the IR instruction count change (summed) of the
# lists those choose. Lists the sweep's gate rejected for a module's language are not used.
# Usage: python3 tools/bench/pool-oracle.py SWEEP.json [K ...]
import json, math, os, sys
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_gains import gain_matrix, greedy_order
sweep = json.load(open(sys.argv[1]))
ks = [int(k) for k in sys.argv[2:]] or [1, 2, 3, 5, 10, 20, 45]
lists, mods = sweep["lists"], sweep["modules"]
gains = gain_matrix(sweep)  # gains[m][l]: log(-Oz size / list size), None where unusable
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
order = greedy_order(gains, max(ks))  # greedy maximum coverage
everything = list(range(len(lists)))
print("%d modules, %d lists" % (len(mods), len(lists)))
print("best of pool: %+.2f%% .text+.data (IR %+.2f%%)" % figures(lambda row: everything))
for k in ks:
    print("K=%2d oracle order %+.2f%% (IR %+.2f%%)" % ((k,) + figures(lambda row: order[:k])))
