#!/usr/bin/env python3
"""Module-by-module .text fidelity of a ThinLTO corpus against the objects the
real build's ThinLTO backend produced.

  thinlto-fidelity.py --flavour local|distributed --build DIR --eval-json FILE

DIR is the directory `mlgo extract-ir --thinlto-build FLAVOUR` read (for
local: the scan root; for distributed: the directory of compile_commands.json),
FILE is `mlgo eval --corpus CORPUS --json FILE` of the corpus extracted from it
(the baseline compile is the ThinLTO backend's). The reference object of a
module is
  local        lld's own backend object, kept by -Wl,--save-temps=prelink:
               <output>.lto.<stem>.o beside the input (the newest, as lld's
               saved post-import module is the last link's);
  distributed  the backend compile's output (the corpus module's object).
.text is the sum of the executable sections, as mlgo measures it. Prints one
line per mismatch and a JSON summary.
"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys


def executable_bytes(obj):
    out = subprocess.run(["llvm-readelf-19", "-S", "--wide", obj], capture_output=True, text=True, check=True).stdout
    total = 0
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("["):
            continue
        fields = line.split("]", 1)[1].split()
        # name type address offset size entsize flags ...
        if len(fields) >= 7 and "X" in fields[6]:
            total += int(fields[4], 16)
    return total


def local_reference(build, name):
    base = os.path.join(build, name)
    directory, leaf = os.path.split(base)
    stem = leaf if "(" in leaf else os.path.splitext(leaf)[0]
    candidates = glob.glob(os.path.join(glob.escape(directory), "*.lto." + glob.escape(stem) + ".o"))
    return max(candidates, key=os.path.getmtime) if candidates else None


def distributed_references(build):
    by_name = {}
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        args = entry.get("arguments") or shlex.split(entry.get("command", ""))
        if not any(a.startswith("-fthinlto-index=") for a in args):
            continue
        output = entry.get("output") or args[args.index("-o") + 1]
        directory = entry["directory"]
        absolute = os.path.normpath(os.path.join(directory, output))
        relative = os.path.relpath(absolute, directory)
        name = relative if not relative.startswith("..") else absolute.lstrip("/")
        by_name[name] = absolute
    return by_name


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flavour", choices=["local", "distributed"], required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--eval-json", required=True)
    args = parser.parse_args()
    report = json.load(open(args.eval_json))
    references = distributed_references(args.build) if args.flavour == "distributed" else None
    compared = matching = 0
    missing = []
    for module in report["modules"]:
        if module["status"] != "ok":
            continue
        name = module["name"]
        reference = local_reference(args.build, name) if references is None else references.get(name)
        if not reference or not os.path.exists(reference):
            missing.append(name)
            continue
        compared += 1
        driver_text, real_text = module["baseline"]["text"], executable_bytes(reference)
        if driver_text == real_text:
            matching += 1
        else:
            print(f"mismatch: {name}: driver {driver_text}, real backend {real_text} ({reference})")
    for name in missing:
        print(f"no reference object: {name}", file=sys.stderr)
    print(json.dumps({"flavour": args.flavour, "compared": compared, "matching": matching,
                      "no_reference": len(missing)}))


if __name__ == "__main__":
    main()
