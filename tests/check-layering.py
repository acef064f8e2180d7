#!/usr/bin/env python3
# check-layering.py [TOP]
#
# The include graph of src/, plugins/ and ui/, read from their #include
# "..." lines, checked for the two things that make a core hard to find
# one's way in: a cycle between modules, and the library reaching up into
# a plugin or the application. A module is a concept's files together:
# strata-foo.c, strata-foo.h, strata-foo-private.h and the internal
# header its split files share, strata-foo-internal.h, in one folder. A
# cycle between the folders of src/libstrata (model, zoom, index ...) is
# one too: those folders are the pipeline's layers, each using only the
# ones below it. An include is resolved as the compiler does with the
# include directories meson gives: relative to the including file first,
# then by its name anywhere in the tree (every folder of src/libstrata is
# on the library's path, so basename includes work everywhere).
#
# Exits 1 with each cycle and each wrong-way include listed, with each
# header of a format library (libtracecmd, libtraceevent, libbpf ...)
# included outside plugins/, and with each include of a plugin header by
# an application other than a plugin's own API: format knowledge above
# the plugins (the event list reads fields through the source interface).
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.MULTILINE)
# The headers of the libraries that know trace formats (libtracecmd,
# libtraceevent, libtracefs, libbpf, elfutils): only plugins/ use them.
FORMAT_LIBRARY = re.compile(r'^(trace-cmd|traceevent|tracefs|bpf|elfutils)/|'
                            r'^(trace-cmd|event-parse|trace-seq|kbuffer|tracefs|libbpf|'
                            r'libelf|gelf|libdw|libdwfl)\.h$')
ROOTS = ('src', 'plugins', 'ui')


def sources(top):
    for root in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(top, root)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(folder, name), top)


def module_of(path):
    folder, name = os.path.split(path)
    stem = re.sub(r'(-private|-internal)?\.[ch]$', '', name)
    return folder + '/' + stem


# The command line is an application, as ui/ is, though its folder is in
# src/: it may use a plugin's own API (the recorder's, for `record`),
# never the reverse.
APPLICATIONS = ('ui', 'cli')
# Plugin headers an application may include: APIs, not format knowledge.
PLUGIN_APIS = ('plugins/ebpf/strata-ebpf-recorder.h',)


def area_of(path):
    if path.startswith('src/cli/'):
        return 'cli'
    return path.split('/', 1)[0]


def layer_of(path):
    """The folder of src/libstrata a file is in, or None."""
    parts = path.split('/')
    if parts[:2] == ['src', 'libstrata'] and len(parts) > 3:
        return parts[2]
    return None


def resolve(path, included, by_name, files):
    near = os.path.normpath(os.path.join(os.path.dirname(path), included))
    if near in files:
        return near
    candidates = by_name.get(os.path.basename(included), [])
    if len(candidates) == 1:
        return candidates[0]
    # A name in more than one place: the one in the includer's own area.
    same = [c for c in candidates if area_of(c) == area_of(path)]
    return same[0] if len(same) == 1 else None


def strongly_connected(graph):
    """Tarjan's components, iteratively; only those of more than one node."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    files = set(sources(top))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)

    modules, layers, errors = {}, {}, []
    n_includes = 0
    for path in sorted(files):
        with open(os.path.join(top, path), encoding='utf-8', errors='replace') as f:
            text = f.read()
        modules.setdefault(module_of(path), set())
        if area_of(path) != 'plugins':
            for included in SYSTEM_INCLUDE.findall(text):
                if FORMAT_LIBRARY.search(included):
                    errors.append(f'{path}: includes <{included}>: a format library outside the plugins')
        for included in INCLUDE.findall(text):
            target = resolve(path, included, by_name, files)
            if target is None:
                continue
            n_includes += 1
            if area_of(path) == 'src' and area_of(target) in ('plugins',) + APPLICATIONS:
                errors.append(f'{path}: includes {target}: the library reaches up into {area_of(target)}')
            if area_of(path) == 'plugins' and area_of(target) in APPLICATIONS:
                errors.append(f'{path}: includes {target}: a plugin reaches up into {area_of(target)}')
            if (area_of(path) in APPLICATIONS and area_of(target) == 'plugins' and
                    target not in PLUGIN_APIS):
                errors.append(f'{path}: includes {target}: format knowledge above the plugins')
            a, b = module_of(path), module_of(target)
            if a != b:
                modules[a].add(b)
            la, lb = layer_of(path), layer_of(target)
            if la is not None and lb is not None and la != lb:
                layers.setdefault(la, set()).add(lb)
                layers.setdefault(lb, set())

    for component in strongly_connected(modules):
        errors.append(f'include cycle between {len(component)} modules: ' + ', '.join(component))
    for component in strongly_connected(layers):
        errors.append(f'include cycle between the folders of src/libstrata: ' + ', '.join(component))

    for line in errors:
        print(line, file=sys.stderr)
    print(f'{len(files)} files, {len(modules)} modules, {n_includes} includes, '
          f'{len(layers)} library folders: {len(errors)} problems')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
