# What select-coreset reads from a sweep.json, for the scripts beside it: each list's gain on each
# module and the greedy coverage order.
import math

def size(outcome):  # .text + .data (text, rodata, data of an outcome)
    return outcome[0] + outcome[1] + outcome[2]

def usable(gate, cxx):
    return gate is not None and (gate["passed"] or (gate["cxx_link_only"] and not cxx))

def gain_matrix(sweep):
    """gains[m][l]: log(-Oz size / list size), None where the list failed or its gate verdict rejects it for
    the module; 0.0 for a module without code or data (unchanged, as select-coreset counts it)."""
    gains = []
    for m in sweep["modules"]:
        row = []
        for l, o in zip(sweep["lists"], m["lists"]):
            ok = o is not None and usable(l.get("gate"), m["cxx"]) and size(o) > 0
            row.append((math.log(size(m["oz"]) / size(o)) if size(m["oz"]) > 0 else 0.0) if ok else None)
        gains.append(row)
    return gains

def greedy_order(gains, count):
    """Up to count list indices, each adding most to the sum over modules of the best gain so far (at least
    0, -Oz); stops when no list adds anything; ties go to the lower index."""
    lists = len(gains[0]) if gains else 0
    order, covered = [], [0.0] * len(gains)
    while len(order) < count:
        add = [sum(max(0.0, (row[l] or 0.0) - c) for row, c in zip(gains, covered)) for l in range(lists)]
        best = max(range(lists), key=lambda l: (add[l], -l))
        if add[best] <= 0: break
        order.append(best)
        covered = [max(c, row[best] or 0.0) for row, c in zip(gains, covered)]
    return order
