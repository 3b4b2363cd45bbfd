#!/usr/bin/env python3
"""Calibrates the compile-cost model that `mlgo cc --store` bounds its choices
with (src/driver/pass_costs.inc): for every pass of the search space, the CPU
nanoseconds it takes per IR instruction of the unit it runs on (a) and per
squared instruction (q), so that a pass whose time grows faster than the code
(GVN hoisting on one huge function) is counted as it costs.

    tools/autotune/calibrate-pass-costs.py TRAIN_CORPUS OUT.inc [INPUTS]

(MLGO names the mlgo binary; default build/mlgo of this checkout.)

TRAIN_CORPUS: the demo's training corpus (never a held-out project). INPUTS
modules are chosen from it (default 8): half with the largest single
function, half with the most functions. Each is timed in three states a list
can leave it in: as the frontend wrote it (after always-inline), after
instcombine alone, and after sroa, early-cse, simplifycfg and instcombine.
Every included element of configs/autotune/passes.txt runs alone on each
(`opt-19 -passes=ELEMENT -disable-output`, CPU time less a no-op run's),
and t = a * sum(n) + q * sum(n^2) is fitted by non-negative least squares,
with n each function's instructions, as mlgo's OptimizationWork hook counts
them (`mlgo ir-counts`: the script counts nothing itself): a module pass too is charged the square of each function, not of the
module, since that is how their time was seen to grow (the IR outliner's on
the training corpus's largest functions; no module pass grew with the square
of a module of many small functions). Each pass class keeps the largest
(a, q) over the four states. The largest function timed bounds the range
the fit holds in (past it, the hook lets the quadratic term grow faster).
Codegen: llc-19 -O2 on each state after -Oz gives nanoseconds per
instruction of the optimized module.
Takes about 20 minutes on two cores; run it on a quiet machine.
"""
import json, os, re, resource, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WRAP = {'module': '{}', 'cgscc': 'cgscc({})', 'function': 'function({})',
        'loop': 'function(loop({}))', 'loop-mssa': 'function(loop-mssa({}))'}
STATES = {'raw': 'always-inline',
          'instcombine': 'always-inline,function(instcombine<no-verify-fixpoint>)',
          'simplified': 'always-inline,function(sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>)',
          'inlined': 'always-inline,cgscc(inline),function(sroa)'}


MLGO = os.environ.get('MLGO', os.path.join(ROOT, 'build', 'mlgo'))


def function_sizes(bitcode):
    """Each defined function's IR instructions, as mlgo's cost model counts them."""
    out = subprocess.run([MLGO, 'ir-counts', bitcode], capture_output=True, text=True, check=True).stdout
    return json.loads(out)['functions']


def cpu_seconds(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(['timeout', '300'] + command, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return spent, result.returncode


def choose_inputs(corpus, count):
    modules = []
    for folder, _, files in os.walk(corpus):
        modules += [os.path.join(folder, name) for name in files if name.endswith('.bc')]
    sized = [(function_sizes(path), path) for path in sorted(modules)]
    by_largest = sorted(sized, key=lambda entry: -max(entry[0], default=0))
    by_count = sorted(sized, key=lambda entry: -len(entry[0]))
    chosen = [path for _, path in by_largest[:count // 2]]
    chosen += [path for _, path in by_count if path not in chosen][:count - len(chosen)]
    return chosen


def pass_classes(element, level, sample):
    """The pass classes an element runs, as the pass instrumentation names them."""
    log = subprocess.run(['opt-19', '-passes=' + WRAP[level].format(element), '-debug-pass-manager',
                          '-disable-output', '-disable-verify', sample], capture_output=True, text=True).stderr
    names = []
    for match in re.finditer(r'Running pass: (\S+)', log):
        name = match.group(1)
        if 'PassManager' not in name and 'PassAdaptor' not in name and name not in names:
            names.append(name)
    return names


def fit(points):
    """Least squares t = a*s1 + q*s2 with a, q >= 0."""
    s11 = sum(p[0] * p[0] for p in points); s22 = sum(p[1] * p[1] for p in points)
    s12 = sum(p[0] * p[1] for p in points)
    t1 = sum(p[0] * p[2] for p in points); t2 = sum(p[1] * p[2] for p in points)
    det = s11 * s22 - s12 * s12
    if det > 0:
        a, q = (t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det
        if a >= 0 and q >= 0:
            return a, q
    error = lambda aq: sum((aq[0] * p[0] + aq[1] * p[1] - p[2]) ** 2 for p in points)
    return min([(max(0.0, t1 / s11) if s11 else 0.0, 0.0), (0.0, max(0.0, t2 / s22) if s22 else 0.0)], key=error)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    corpus, output = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    elements = [line.rstrip('\n').split('\t')[1:3] for line in open(os.path.join(ROOT, 'configs/autotune/passes.txt'))
                if line.startswith('include\t')]
    work = tempfile.mkdtemp(prefix='mlgo-calibrate-')
    inputs = {}
    for index, module in enumerate(choose_inputs(corpus, count)):
        for state, prefix in STATES.items():
            path = os.path.join(work, f'{index}.{state}.bc')
            subprocess.run(['opt-19', '-passes=' + prefix, module, '-o', path], check=True)
            inputs[path] = (state, function_sizes(path), min(cpu_seconds(
                ['opt-19', '-passes=no-op-module', '-disable-output', '-disable-verify', path])[0] for _ in range(2)))
    coefficients = {}
    for level, element in elements:
        classes = [name for name in pass_classes(element, level, next(iter(inputs))) if name != 'VerifierPass']
        if len(classes) != 1:
            continue  # a pipeline: its passes are calibrated one by one
        by_state = {}
        for path, (state, sizes, baseline) in inputs.items():
            seconds, status = cpu_seconds(['opt-19', '-passes=' + WRAP[level].format(element), '-disable-output',
                                           '-disable-verify', path])
            if status != 0:
                continue
            total = sum(sizes)
            squares = sum(n * n for n in sizes)
            by_state.setdefault(state, []).append((total, squares, max(0.0, seconds - baseline)))
        fits = [fit(points) for points in by_state.values() if len(points) >= count // 2]
        if fits:
            coefficients[classes[0]] = (max(a for a, _ in fits) * 1e9, max(q for _, q in fits) * 1e9, element)
        print(f'{classes[0]}: {coefficients.get(classes[0])}', file=sys.stderr)
    per_instruction = []
    for path, (state, _, _) in inputs.items():
        optimized = path + '.oz.bc'
        subprocess.run(['opt-19', '-passes=default<Oz>', path, '-o', optimized], check=True)
        seconds, _ = cpu_seconds(['llc-19', '-O2', '-filetype=obj', optimized, '-o', os.devnull])
        per_instruction.append(seconds * 1e9 / max(1, sum(function_sizes(optimized))))
    codegen = sorted(per_instruction)[len(per_instruction) // 2]
    largest = max(max(sizes, default=0) for _, sizes, _ in inputs.values())
    with open(output + '.tmp', 'w') as out:
        out.write('// Generated by tools/autotune/calibrate-pass-costs.py; do not edit.\n')
        out.write('// Included by src/driver/optimization_work.cpp (see optimization_work.h).\n')
        out.write('constexpr PassCost kPassCosts[] = {\n')
        for name, (a, q, element) in sorted(coefficients.items()):
            out.write(f'    {{"{name}", {a:.1f}, {q:.5f}}},  // {element}\n')
        out.write('};\n')
        out.write(f'constexpr double kCodeGenerationNsPerInstruction = {codegen:.1f};\n')
        out.write(f'constexpr double kLargestCalibratedFunction = {largest};\n')
    os.replace(output + '.tmp', output)
    print(json.dumps({'passes': len(coefficients), 'codegen_ns_per_instruction': round(codegen, 1),
                      'inputs': sorted(set(os.path.basename(p) for p in inputs))}))


if __name__ == '__main__':
    main()
