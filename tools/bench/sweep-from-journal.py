# A sweep.json from a sweep-passes run stopped before its end: the rows of the modules its journal
# (OUTPUT/.sweep-journal) holds, and for each module it had not finished, that module's row from an
# earlier, finished sweep of the same corpus (that sweep's lists only; the others unknown, so the
# module's best is a bound). Gate verdicts come from a --cache-dir's gate-verdicts directory (each
# verdict file names its pipeline). For tools/bench/pool-oracle.py and predicted-topk.py.
# Usage: python3 tools/bench/sweep-from-journal.py JOURNAL_DIR EARLIER_SWEEP.json VERDICT_DIR OUT.json
import glob, json, os, sys
journal, earlier_path, verdicts, out = sys.argv[1:5]
pipelines = json.load(open(os.path.join(journal, 'settings.json')))['lists']
earlier = json.load(open(earlier_path))
verdict = {}
for path in glob.glob(os.path.join(verdicts, '*.json')):
    v = json.load(open(path))
    verdict[v['pipeline']] = {k: v[k] for k in ('passed', 'cxx_link_only', 'program')}
rows = {}
for path in glob.glob(os.path.join(journal, '*.done')):
    entry = open(path, 'rb').read()  # the module's key, then its row
    row = json.loads(entry[entry.find(b'{"cxx"'):].decode())
    rows[row['name']] = row
column = {l['pipeline']: i for i, l in enumerate(earlier['lists'])}
filled = []
for module in earlier['modules']:
    if module['name'] in rows: continue
    row = dict(module)
    row['lists'] = [module['lists'][column[p]] if p in column else None for p in pipelines]
    rows[module['name']] = row
    filled.append(module['name'])
lists = [{'pipeline': p, 'gate': verdict.get(p)} for p in pipelines]
json.dump({'format': earlier['format'], 'version': earlier['version'], 'outcome_fields': earlier['outcome_fields'],
           'feature_names': earlier['feature_names'], 'failed_modules': [], 'lists': lists,
           'modules': [rows[m['name']] for m in earlier['modules']]}, open(out, 'w'))
print('%d modules, %d from the earlier sweep (%s); %d lists, %d without a gate verdict' %
      (len(rows), len(filled), ' '.join(filled), len(lists), sum(1 for l in lists if l['gate'] is None)))
