# Copies a seeded random sample of a corpus's modules into a new corpus.
# Usage: python3 tools/bench/sample-corpus.py CORPUS NEW_CORPUS COUNT SEED
import json, os, random, shutil, sys
src, dst, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
modules = json.load(open(os.path.join(src, "corpus_description.json")))["modules"]
random.seed(seed)
picked = sorted(random.sample(modules, count))
for name in picked:
    for ext in (".bc", ".cmd"):
        os.makedirs(os.path.dirname(os.path.join(dst, name + ext)), exist_ok=True)
        shutil.copyfile(os.path.join(src, name + ext), os.path.join(dst, name + ext))
json.dump({"has_thinlto": False, "modules": picked}, open(os.path.join(dst, "corpus_description.json"), "w"), indent=2)
print("\n".join(picked))
