#!/usr/bin/env python3
"""Drop the pass lists that leave the search space from a coreset and a predictor.

    tools/autotune/restrict-to-space.py [--passes configs/autotune/passes.txt]
        [--coreset configs/autotune/coreset.json]
        [--predictor configs/autotune/pass-predictor]

When an element of configs/autotune/passes.txt becomes "exclude" (for
example a pass found to miscompile), a coreset or predictor whose lists use
it no longer loads: mlgo refuses lists outside the space. Retraining needs a
new sweep of the training corpus (hours); this removes the offending lists
instead, exactly: a predictor scores each coreset list with one output of its
last layer, so dropping a list and its output row leaves the ranking of the
other lists unchanged. The coreset's oracle figures were measured with the
dropped lists and are kept under "restricted" as what they were.

Files are rewritten in place through a temporary name. Exit status 0 when
done (also when nothing needed dropping), 1 on an unreadable input.
"""
import argparse
import json
import os
import sys


def included_elements(passes_file):
    included = set()
    with open(passes_file) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            status, _level, element, _reason = line.rstrip("\n").split("\t")
            if status == "include":
                included.add(element)
    return included


def write_json(path, document, indent):
    partial = path + ".partial"
    with open(partial, "w") as f:
        f.write(json.dumps(document, indent=indent) + "\n")
    os.replace(partial, path)


def restrict_coreset(coreset, included):
    """Returns the indices kept and records what was dropped."""
    kept = [i for i, entry in enumerate(coreset["lists"]) if all(p in included for p in entry["passes"])]
    dropped = [entry["pipeline"] for i, entry in enumerate(coreset["lists"]) if i not in kept]
    if dropped:
        record = coreset.setdefault("restricted", {
            "oracle_geomean_change_before": coreset.get("oracle_geomean_change"),
            "lists_before": len(coreset["lists"]),
            "dropped": [],
        })
        record["dropped"] += dropped
        record["reason"] = "lists using elements that configs/autotune/passes.txt excludes"
        coreset["lists"] = [coreset["lists"][i] for i in kept]
    return kept, dropped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", default="configs/autotune/passes.txt")
    parser.add_argument("--coreset", default="configs/autotune/coreset.json")
    parser.add_argument("--predictor", default="configs/autotune/pass-predictor")
    args = parser.parse_args()
    try:
        included = included_elements(args.passes)
        with open(args.coreset) as f:
            coreset = json.load(f)
        metadata_file = os.path.join(args.predictor, "predictor.json")
        weights_file = os.path.join(args.predictor, "model.json")
        with open(metadata_file) as f:
            metadata = json.load(f)
        with open(weights_file) as f:
            weights = json.load(f)
    except (OSError, ValueError) as error:
        print(f"restrict-to-space: {error}", file=sys.stderr)
        return 1

    _kept, dropped = restrict_coreset(coreset, included)
    write_json(args.coreset, coreset, 2)
    print(f"{args.coreset}: dropped {len(dropped)}, kept {len(coreset['lists'])}")

    kept, dropped = restrict_coreset(metadata["coreset"], included)
    last = weights["layers"][-1]
    last["weights"] = [w for i in kept for w in last["weights"][i * last["inputs"]:(i + 1) * last["inputs"]]]
    last["bias"] = [last["bias"][i] for i in kept]
    last["outputs"] = len(kept)
    metadata["layer_sizes"][-1] = len(kept)
    write_json(weights_file, weights, None)
    write_json(metadata_file, metadata, 1)
    print(f"{args.predictor}: dropped {len(dropped)}, kept {len(kept)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
