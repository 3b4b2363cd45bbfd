# Candidate lists for a wider training sweep: the lists of a finished sweep in select-coreset's greedy
# coverage order (until no list adds anything), then by the largest gain summed over its modules, COUNT
# in all, one a line as search-space elements (sweep-passes --lists reads it). Gains as select-coreset
# counts them: log(-Oz size / size) of .text+.data where the list compiled and its gate verdict allows.
# Usage: python3 tools/bench/candidate-lists.py SWEEP.json COUNT > lists.txt
import json, math, sys
sweep = json.load(open(sys.argv[1]))
count = int(sys.argv[2])
lists, mods = sweep["lists"], sweep["modules"]
def size(o): return o[0] + o[1] + o[2]
def usable(gate, cxx):
    return gate is not None and (gate["passed"] or (gate["cxx_link_only"] and not cxx))
gains = []  # gains[m][l] >= 0
for m in mods:
    gains.append([max(0.0, math.log(size(m["oz"]) / size(o))) if o is not None and size(o) > 0 and size(m["oz"]) > 0
                  and usable(l.get("gate"), m["cxx"]) else 0.0 for l, o in zip(lists, m["lists"])])
order, covered = [], [0.0] * len(mods)
while len(order) < count:
    add = [sum(max(0.0, row[l] - c) for row, c in zip(gains, covered)) for l in range(len(lists))]
    best = max(range(len(lists)), key=lambda l: (add[l], -l))
    if add[best] <= 0: break
    order.append(best)
    covered = [max(c, row[best]) for row, c in zip(gains, covered)]
total = [sum(row[l] for row in gains) for l in range(len(lists))]
for l in sorted(range(len(lists)), key=lambda l: (-total[l], l)):
    if len(order) >= count: break
    if l not in order: order.append(l)
print("# %d lists of %s: greedy coverage order, then the largest summed gain" % (len(order), sys.argv[1]))
for l in order: print(" ".join(lists[l]["passes"]))
