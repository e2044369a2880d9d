#!/usr/bin/env python3
"""Regenerates the tables the docs derive from spec/manifest.json and the model configs.

  python3 spec/tools/doc_tables.py [check-report.json]

- proofs-notes/<ID>-<Name>.md: the "Checked by TLC" table of every model whose config checks the
  property (ProofsNotesTest fails when a cited count differs from the manifest's);
- docs/spec.md: the models, mutants and witnesses tables between <!-- models --> and <!-- /models -->.

Distinct states, depth, states generated and times come from the manifest (`lumen check
--update-manifest` records them; a `lumen check --report FILE` report, when given, overrides the
times). A model the manifest has no time for keeps the one docs/spec.md shows. Run it after
`lumen check --update-manifest`.
"""
import json, re, sys, pathlib

root = pathlib.Path(__file__).resolve().parents[2]
spec = root / 'spec'
manifest = json.loads((spec / 'manifest.json').read_text())
report = json.loads(pathlib.Path(sys.argv[1]).read_text()) if len(sys.argv) > 1 else None

BOUNDS = {
    'MCPlacement': 'PlacementSpec; 3 workers, 3 requests, no failures, Budget 3',
    'MCRouting': 'RoutingSpec; 3 workers, 2 requests, 2 failures, Budget 3',
    'MCHandover': 'HandoverSpec; 3 workers, 2 requests, 2 failures, 3-token outputs, Budget 4, no streaming',
    'MCLumen': 'Spec (LUMEN); 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenSR': 'Spec (SR); 3 workers, 3 requests, 2 failures',
    'MCLumenFC': 'Spec (FC); 3 workers, 2 requests, 2 failures, Budget 3',
    'MCLumenDual': 'Spec (DUAL); 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenHetero': 'Spec (LUMEN); 3 workers, 2 requests of 1- and 2-page prompts and different 3-token outputs, 1 failure, Budget 9, K 2',
    'MCLumenLivenessDegraded': 'Spec (LUMEN), fairness; 3 workers, 2 requests, 1 failure, Budget 0',
    'MCLumenLiveness': 'Spec (LUMEN), fairness, and R1 with its liveness; 2 workers, 2 requests, 1 failure, Budget 3',
    'MCLumenLivenessLong': 'Spec (LUMEN), fairness, and R1 with its liveness; 2 workers, 1 request of a 4-token output, 1 failure, Budget 5, K 2',
    'MCLumenLivenessLongFull': '--full: Spec (LUMEN), fairness, and R1 with its liveness; 2 workers, 2 requests of 4-token outputs, 1 failure, Budget 5, K 2',
    'MCLumenLivenessSteady': 'SteadySpec (LUMEN under a steady workload, the full load not forced); 2 workers, 2 requests, 1 failure, Budget 3, K 2',
    'MCLumenLongDecode': 'Spec (LUMEN); 2 workers, 2 requests of 4-token outputs, pages of 2 positions, 1 failure, Budget 5, K 2',
    'MCLumenGray': 'Spec (LUMEN), gray failures (a failure may leave a zombie); 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenNoPlacement': 'Spec (NO_PLACEMENT: ring placement, Eq. 6, assist); 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenPlacementOnly': 'Spec (PLACEMENT_ONLY: load-aware placement, holder-always routing, full reload); 3 workers, 2 requests, 1 failure, Budget 6',
    'MCLumenNoRouting': '--full: Spec (NO_ROUTING: load-aware placement, holder-always routing, assist); 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenNoAssist': '--full: Spec (NO_ASSIST: load-aware placement, Eq. 6, full reload); 3 workers, 2 requests, 2 failures, Budget 6',
    'MCLumenRoutingOnly': '--full: Spec (ROUTING_ONLY: ring placement, Eq. 6, full reload); 3 workers, 2 requests, 2 failures, Budget 6',
    'MCLumenAssistOnly': '--full: Spec (ASSIST_ONLY: ring placement, holder-always routing, assist); 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenWaitingQueue': 'Spec (LUMEN), queue reading "waiting"; 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenWaitingQueueFull': '--full: Spec (LUMEN), queue reading "waiting"; 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenBudgetStored': 'Spec (LUMEN), budget reading "stored"; 3 workers, 2 requests, 1 failure, Budget 2, K 2',
    'MCLumenBudgetStoredFull': '--full: Spec (LUMEN), budget reading "stored"; 3 workers, 2 requests, 2 failures, Budget 2, K 2',
    'MCLumenLivenessBudgetStored': 'Spec (LUMEN), fairness, budget reading "stored"; 2 workers, 2 requests, 1 failure, Budget 1',
    'MCLumenRouteIncrement': 'Spec (LUMEN), routeLoads reading "increment"; 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenRouteIncrementFull': '--full: Spec (LUMEN), routeLoads reading "increment"; 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenStaleLoads': 'Spec (LUMEN), citedLoads reading "stale" (monitor reports of any age); 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenStaleLoadsFull': '--full: Spec (LUMEN), citedLoads reading "stale" (monitor reports of any age); 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenAssistPerProposal': 'Spec (LUMEN), assistTarget reading "proposal"; 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenAssistPerProposalFull': '--full: Spec (LUMEN), assistTarget reading "proposal"; 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenArriveAny': 'Spec (LUMEN), arrival reading "any"; 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenArriveAnyFull': '--full: Spec (LUMEN), arrival reading "any"; 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCLumenFCFallThrough': 'Spec (FC), reading ringFallThrough; 3 workers, 2 requests, 1 failure, Budget 3',
    'MCLumenFCFallThroughFull': '--full: Spec (FC), reading ringFallThrough; 3 workers, 2 requests, 2 failures, Budget 3',
    'MCLumenFCPrevious': 'Spec (FC), ring reversed (ringDirection "previous"); 3 workers, 2 requests, 1 failure, Budget 3',
    'MCLumenFCPreviousFull': '--full: Spec (FC), ring reversed (ringDirection "previous"); 3 workers, 2 requests, 2 failures, Budget 3',
    'MCLumenDualRebackup': 'Spec (DUAL), reading rebackup; 3 workers, 2 requests, 1 failure, Budget 6, K 2',
    'MCLumenDualRebackupFull': '--full: Spec (DUAL), reading rebackup; 3 workers, 2 requests, 2 failures, Budget 6, K 2',
    'MCRoutingFull': '--full: RoutingSpec; 3 workers, 3 requests, 2 failures, Budget 3',
    'MCHandoverFull': '--full: HandoverSpec; 3 workers, 3 requests, 2 failures, 3-token outputs, Budget 4, no streaming',
    'MCLumenFull': '--full: Spec (LUMEN); 3 workers, 3 requests, 2 failures, Budget 6, K 2',
    'MCLumenFCFull': '--full: Spec (FC); 3 workers, 3 requests, 2 failures, Budget 3',
    'MCLumenHeteroFull': '--full: Spec (LUMEN); 3 workers, 2 requests of 1- and 2-page prompts and different 3-token outputs, 2 failures, Budget 9, K 2',
    'MCLumenLivenessFull': '--full: Spec (LUMEN), fairness, and R1 with its liveness; 3 workers, 2 requests, 1 failure, Budget 3',
    'MCLumenLivenessGray': '--full: Spec (LUMEN), fairness, R1 with its liveness, gray failures (a failure may leave a zombie); 2 workers, 2 requests, 1 failure, Budget 3',
    'MCLumenLarge': '--large: Spec (LUMEN); 4 workers, 3 requests, 3 failures',
    'MCLumenLongOutput': '--large: Spec (LUMEN); 3 workers, 3 requests, 2 failures, 3-token outputs, K 3',
    'MCLumenFCLarge': '--large: Spec (FC); 4 workers, 3 requests, 3 failures',
    'MCLumenDualLarge': '--large: Spec (DUAL); 3 workers, 3 requests, 2 failures',
    'MCLumenLivenessLarge': '--large: liveness; 3 workers, 2 requests, 2 failures',
}
# Properties a model's config checks but which hold there vacuously (their antecedent or the state
# they constrain never arises at that model's bounds), with the reason. They are not counted as
# checked by that model: the tables list them apart and the traceability matrix leaves them out.
_SR = 'SR places no checkpoint: no holder, copy, counter or restore'
_NOSTREAM = 'no streaming: every checkpoint and restore is empty'
VACUOUS = {
    'MCLumenSR': {i: _SR for i in ['S4', 'S5', 'S6', 'S8', 'S12', 'S13', 'S14', 'S15']},
    'MCHandover': {'S12': _NOSTREAM, 'S13': _NOSTREAM},
    'MCHandoverFull': {'S12': _NOSTREAM, 'S13': _NOSTREAM},
    'MCLumenLivenessDegraded': {'L3': 'Budget 0: no request ever has a holder'},
    'MCLumenArriveAny': {'A6': 'arrival=any: the gateway\'s own rule, A6 asks nothing'},
    'MCLumenArriveAnyFull': {'A6': 'arrival=any: the gateway\'s own rule, A6 asks nothing'},
}


def vacuous(entry):
    return {i: why for i, why in VACUOUS.get(entry['name'], {}).items() if i in checks(entry)}


ORDER = ['S%d' % i for i in range(1, 20)] + ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'L1', 'L2', 'L3', 'L4', 'R1']


def checks(entry):
    text = (spec / entry['config']).read_text()
    ids = re.findall(r'^(?:INVARIANT|PROPERTY) ([SALR]\d+)_', text, re.M)
    return [i for i in ORDER if i in ids]


def count(n):
    return 'not yet measured' if n is None else f'{n:,}'


models = [m for m in manifest['models'] if m['expect'] == 'pass']

# proofs notes
for p in manifest['properties']:
    note = root / 'proofs-notes' / f"{p['id']}-{p['name']}.md"
    text = note.read_text()
    rows = ['| model | tier | bounds | distinct states | depth |', '|---|---|---|---|---|']
    empty = []
    for m in models:
        if p['id'] in checks(m) and p['id'] in vacuous(m):
            empty.append(f"{m['name']} ({vacuous(m)[p['id']]})")
        elif p['id'] in checks(m):
            rows.append(f"| {m['name']} | {m['tier']} | {BOUNDS[m['name']]} | {count(m.get('distinctStates'))} | "
                        f"{m.get('depth') if m.get('depth') is not None else '-'} |")
    table = '\n'.join(rows) + "\n\nState counts are those of `spec/manifest.json`; the build fails when TLC finds others.\n"
    if empty:
        table += ("Also in the config of " + ", ".join(empty) + ", where it holds vacuously: not counted as checked there.\n")
    marker = f'<!-- tlc {p["id"]} -->\n'
    if marker in text:
        text = text.replace(marker, table)
    else:
        text = re.sub(r'(## Checked by TLC\n\n).*?(?=\n## )', lambda x: x.group(1) + table, text, flags=re.S)
    note.write_text(text)

# README tables
readme = root / 'docs' / 'spec.md'
text = readme.read_text()
old = re.search(r'<!-- models -->\n(.*?)<!-- /models -->', text, re.S).group(1)
times = {}
for line in old.splitlines():
    cells = [c.strip() for c in line.strip('|').split('|')]
    if len(cells) in (7, 8, 9) and cells[0].startswith('MC'):
        times[cells[0]] = cells[-1]
for m in models:
    if m.get('seconds') is not None:
        times[m['name']] = f"{m['seconds']:.1f}"
if report:
    for row in report['models']:
        if row.get('seconds') is not None:
            times[row['model']] = f"{row['seconds']:.1f}"
out = ['| model | tier | checks | vacuous there | bounds | distinct states | states generated | depth | time (s) |', '|---|---|---|---|---|---|---|---|---|']
for m in models:
    v = vacuous(m)
    out.append(f"| {m['name']} | {m['tier']} | {' '.join(i for i in checks(m) if i not in v)} | {' '.join(v) or '-'} | {BOUNDS[m['name']]} | {count(m.get('distinctStates'))} | "
               f"{'-' if m.get('statesGenerated') is None else format(m['statesGenerated'], ',')} | {m.get('depth') if m.get('depth') is not None else '-'} | {times.get(m['name'], 'not measured at this version')} |")
intro_end = old.index('| mutant |')
between = old[old.index('\n\n', old.index('| model |')):intro_end]
muts = ['| mutant | bug | must be rejected with |', '|---|---|---|']
for m in manifest['models']:
    if m['expect'] == 'violation':
        muts.append(f"| {m['name']} | {m['description']} | {m['property']} |")
wit_start = old.index('| witness |')
between2 = old[old.index('\n\n', intro_end):wit_start]
wits = ['| witness | scenario TLC must reach |', '|---|---|']
for m in manifest['models']:
    if m['expect'] == 'witness':
        wits.append(f"| {m['name']} | {m['description']} |")
new = '\n'.join(out) + between + '\n'.join(muts) + between2 + '\n'.join(wits) + '\n'
readme.write_text(text.replace(old, new))
print('tables regenerated')

# the traceability matrix: its "CI models that check it" column
index = root / 'proofs-notes' / 'README.md'
lines = index.read_text().split('\n')
for k, line in enumerate(lines):
    m = re.match(r'^\| \[([SALR]\d+) ', line)
    if m:
        cells = line.split(' | ')
        cells[3] = ', '.join(x['name'] for x in models if x['tier'] == 'ci' and m.group(1) in checks(x)
                             and m.group(1) not in vacuous(x)) or 'none'
        lines[k] = ' | '.join(cells)
index.write_text('\n'.join(lines))
