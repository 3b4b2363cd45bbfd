# A sweep.json for modules a sweep-passes run did not cover: the rows of a sweep (its sweep.json, or
# the journal OUTPUT/.sweep-journal of a run stopped before its end), and for each module of an
# earlier, finished sweep of the corpus that it lacks, that module's row from the earlier sweep (its
# lists only; the others unknown, so the module's best is a bound). Gate verdicts: a sweep.json's own,
# or for a journal those of a --cache-dir's gate-verdicts directory (each verdict file names its
# pipeline). For the pool's oracle (mlgo select-coreset) and a ranking's
# figures (mlgo predict-passes --sweep).
# Usage: python3 tools/bench/fill-sweep.py SWEEP.json|JOURNAL_DIR EARLIER_SWEEP.json VERDICT_DIR OUT.json
import glob, json, os, sys
source, earlier_path, verdicts, out = sys.argv[1:5]
earlier = json.load(open(earlier_path))
rows = {}
if os.path.isdir(source):
    pipelines = json.load(open(os.path.join(source, 'settings.json')))['lists']
    verdict = {}
    for path in glob.glob(os.path.join(verdicts, '*.json')):
        v = json.load(open(path))
        verdict[v['pipeline']] = {k: v[k] for k in ('passed', 'cxx_link_only', 'program')}
    for path in glob.glob(os.path.join(source, '*.done')):
        entry = open(path, 'rb').read()  # the module's key, then its row
        row = json.loads(entry[entry.find(b'{"cxx"'):].decode())
        rows[row['name']] = row
    lists = [{'pipeline': p, 'gate': verdict.get(p)} for p in pipelines]
else:
    sweep = json.load(open(source))
    lists = sweep['lists']
    pipelines = [l['pipeline'] for l in lists]
    rows = {row['name']: row for row in sweep['modules']}
column = {l['pipeline']: i for i, l in enumerate(earlier['lists'])}
filled = []
for module in earlier['modules']:
    if module['name'] in rows: continue
    row = dict(module)
    row['lists'] = [module['lists'][column[p]] if p in column else None for p in pipelines]
    rows[module['name']] = row
    filled.append(module['name'])
json.dump({'format': earlier['format'], 'version': earlier['version'], 'outcome_fields': earlier['outcome_fields'],
           'feature_names': earlier['feature_names'], 'failed_modules': [], 'lists': lists,
           'modules': [rows[m['name']] for m in earlier['modules']]}, open(out, 'w'))
print('%d modules, %d from the earlier sweep (%s); %d lists, %d without a gate verdict' %
      (len(rows), len(filled), ' '.join(filled), len(lists), sum(1 for l in lists if l['gate'] is None)))
