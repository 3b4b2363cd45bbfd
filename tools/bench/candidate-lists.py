# Candidate lists for a wider training sweep: the lists of a finished sweep in select-coreset's greedy
# coverage order (until no list adds anything), then by the largest gain summed over its modules, COUNT
# in all, one a line as search-space elements (sweep-passes --lists reads it). Gains as select-coreset
# counts them: log(-Oz size / size) of .text+.data where the list compiled and its gate verdict allows.
# Usage: python3 tools/bench/candidate-lists.py SWEEP.json COUNT > lists.txt
import json, os, sys
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_gains import gain_matrix, greedy_order
sweep = json.load(open(sys.argv[1]))
count = int(sys.argv[2])
lists = sweep["lists"]
gains = [[max(0.0, g or 0.0) for g in row] for row in gain_matrix(sweep)]
order = greedy_order(gains, count)
total = [sum(row[l] for row in gains) for l in range(len(lists))]
for l in sorted(range(len(lists)), key=lambda l: (-total[l], l)):
    if len(order) >= count: break
    if l not in order: order.append(l)
print("# %d lists of %s: greedy coverage order, then the largest summed gain" % (len(order), sys.argv[1]))
for l in order: print(" ".join(lists[l]["passes"]))
