#!/usr/bin/env python3
"""Compiler-driven narrowing of the public surface (docs/pub-surface.md).

    python3 scripts/narrow-pub.py .      (in a clean checkout: it edits src/)

Every `pub` item line of src/ (not src/lib.rs, not `*_tests.rs`, not a name a
`pub use` re-exports) becomes pub(crate); then, until every build is clean:
- an error/warning whose span hits a narrowed line (external use, private in public) -> pub again;
- dead in the library's test build (unused anywhere in the crate) or in the lean build -> pub again;
- dead only in the non-test library build (used by unit tests alone): a fn/const/static gets
  #[cfg(test)] above it; a type gets pub again."""
import json, os, re, subprocess, sys
root = os.path.abspath(sys.argv[1]); os.chdir(root)
tgt = os.environ.get('NARROW_TARGET', os.path.join(root, 'target', 'narrow'))
item_re = re.compile(r'^(\s*)pub ((?:async )?(?:unsafe )?(?:fn|struct|enum|const|static|type|trait|union)\b)')
reexp = set()
for d, _, fs in os.walk('src'):
    for f in fs:
        if f.endswith('.rs'):
            for l in open(os.path.join(d, f)):
                m = re.match(r'\s*pub use (.*);', l)
                if m:
                    reexp.update(re.findall(r'\b([A-Za-z_][A-Za-z0-9_]*)\b', m.group(1)))
changed = {}
for d, _, fs in os.walk('src'):
    for f in fs:
        p = os.path.join(d, f)
        if not f.endswith('.rs') or f.endswith('_tests.rs') or p == 'src/lib.rs':
            continue
        lines = open(p).read().split('\n'); dirty = False
        for i, l in enumerate(lines):
            m = item_re.match(l)
            if not m: continue
            nm = re.match(r'(?:async )?(?:unsafe )?(?:fn|struct|enum|const|static|type|trait|union)\s+([A-Za-z0-9_]+)', m.group(2) + l[m.end():])
            if nm and nm.group(1) in reexp: continue
            changed[(p, i)] = l
            lines[i] = m.group(1) + 'pub(crate) ' + l[m.end(1) + 4:]; dirty = True
        if dirty: open(p, 'w').write('\n'.join(lines))
print('narrowed', len(changed), file=sys.stderr)
gated = []
def lines_of(p): return open(p).read().split('\n')
def restore(p, i):
    if (p, i) in changed:
        L = lines_of(p); L[i] = changed.pop((p, i)); open(p, 'w').write('\n'.join(L)); return True
    return False
def gate(p, i):
    L = lines_of(p)
    ind = re.match(r'\s*', L[i]).group(0)
    if i > 0 and L[i-1].strip() == '#[cfg(test)]': return False
    L.insert(i, ind + '#[cfg(test)]')
    open(p, 'w').write('\n'.join(L))
    # shift recorded line numbers of this file
    for (q, k) in sorted([k for k in changed if k[0] == p and k[1] >= i], key=lambda x: -x[1]):
        changed[(q, k + 1)] = changed.pop((q, k))
    gated.append((p, L[i+1].strip()[:80]))
    return True
def spans(m):
    out = []
    def walk(x):
        for s in x.get('spans', []): out.append((s['file_name'], s['line_start'] - 1))
        for c in x.get('children', []): walk(c)
    walk(m); return out
def msgs(cmd, cwd=root):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=dict(os.environ, CARGO_TARGET_DIR=tgt))
    for line in r.stdout.splitlines():
        try: j = json.loads(line)
        except Exception: continue
        if j.get('reason') == 'compiler-message' and j['message']['level'] in ('error', 'warning'):
            yield j['message']
def rel(fn, cwd): return os.path.relpath(os.path.join(cwd, fn), root)
def is_dead(m): return (m.get('code') or {}).get('code') == 'dead_code'
J = '--message-format=json'
rnd = 0
why = []
while True:
    rnd += 1; fixed = 0; other = []
    # 1. errors anywhere (all targets, lean, fuzz): external uses
    for cmd, cwd in [(['cargo', 'check', '--all-targets', J], root), (['cargo', 'check', '--lib', '--no-default-features', J], root), (['cargo', 'check', J], os.path.join(root, 'fuzz'))]:
        for m in msgs(cmd, cwd):
            if is_dead(m) and cmd[2] == '--all-targets': continue
            hit = False
            prim = [rel(x['file_name'], cwd) for x in m.get('spans', []) if x.get('is_primary')]
            for fn, ln in spans(m):
                if restore(rel(fn, cwd), ln):
                    fixed += 1; hit = True
                    why.append((prim[0] if prim else '?', m['message'][:90], rel(fn, cwd)))
            if not hit and m['level'] == 'error': other.append(m['rendered'][:300] if m.get('rendered') else m['message'])
    if fixed: print(f'round {rnd}: restored {fixed} for uses', file=sys.stderr); continue
    # 2. dead in the test build of the library: restore
    testdead = set()
    for m in msgs(['cargo', 'check', '--lib', '--profile', 'test', J]):
        for fn, ln in ([(s['file_name'], s['line_start'] - 1) for s in m['spans']] if is_dead(m) else spans(m)):
            if restore(rel(fn, root), ln): fixed += 1
            elif is_dead(m): testdead.add((rel(fn, root), ln))
    if fixed: print(f'round {rnd}: restored {fixed} dead in test build', file=sys.stderr); continue
    # 3. dead only in the plain library build: gate fns with cfg(test)
    todo = []
    for m in msgs(['cargo', 'check', '--lib', J]):
        if not is_dead(m): continue
        for fn, ln in [(s['file_name'], s['line_start'] - 1) for s in m['spans']]:
            todo.append((rel(fn, root), ln))
    for p, ln in sorted(set(todo), key=lambda x: (x[0], -x[1])):
        l = lines_of(p)[ln]
        if re.match(r'\s*(pub(\(crate\))? )?(const )?(async )?(fn|const|static)\b', l) and (p, ln) not in testdead:
            if gate(p, ln): fixed += 1
        elif restore(p, ln): fixed += 1
        else: other.append('dead, not handled: %s:%d %s' % (p, ln + 1, l.strip()[:80]))
    print(f'round {rnd}: step3 fixed {fixed}; other {len(other)}', file=sys.stderr)
    if fixed == 0:
        for o in other[:30]: print('  OTHER', o, file=sys.stderr)
        break
for use_site, msg, item in why:
    print('  kept pub: %s (%s; %s)' % (item, msg, use_site), file=sys.stderr)
print('still narrowed', len(changed), 'gated', len(gated), file=sys.stderr)
for g in gated: print('  gated', g, file=sys.stderr)
