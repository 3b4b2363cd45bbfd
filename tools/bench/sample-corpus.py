# Copies a seeded random sample of a corpus's modules into a new corpus.
# Usage: python3 tools/bench/sample-corpus.py CORPUS NEW_CORPUS COUNT SEED [--per-project] [--add]
#   --per-project: COUNT modules from each project (the first component of a module's
#   name; all of a smaller project's), so that every project of the corpus is in the sample.
#   --add: NEW_CORPUS is an existing corpus; the sample joins its modules.
import collections, json, os, random, shutil, sys
src, dst, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
per_project = "--per-project" in sys.argv[5:]
add = "--add" in sys.argv[5:]
modules = json.load(open(os.path.join(src, "corpus_description.json")))["modules"]
random.seed(seed)
if per_project:
    projects = collections.defaultdict(list)
    for name in modules:
        projects[name.split("/")[0]].append(name)
    picked = sorted(n for p in sorted(projects) for n in random.sample(projects[p], min(count, len(projects[p]))))
else:
    picked = sorted(random.sample(modules, count))
for name in picked:
    for ext in (".bc", ".cmd"):
        os.makedirs(os.path.dirname(os.path.join(dst, name + ext)), exist_ok=True)
        shutil.copyfile(os.path.join(src, name + ext), os.path.join(dst, name + ext))
described = sorted(set(picked) | set(json.load(open(os.path.join(dst, "corpus_description.json")))["modules"])) \
    if add else picked
json.dump({"has_thinlto": False, "modules": described}, open(os.path.join(dst, "corpus_description.json"), "w"), indent=2)
print("\n".join(picked))
