"""Runs an independent executor with one change, for the buggy `independent_*` modules of examples/buggy (and the
Python example with one change, for variants written as a change of it: `exec_example`).

Each of those modules names one of the three files of `examples/independent/python/` (executor.py, schema.py,
strictjson.py) or of `examples/independent/node/` (executor.mjs, json.mjs, schema.mjs), a piece of it and the text
that replaces it; `exec_python` and `exec_node` write the three files, one of them changed, to a folder of the temp
folder named by a hash of the changed sources (written whole before it is renamed into place, so concurrent runs
share it) and replace the Python process with the changed executor (`sys.executable` on `executor.py`, `node` on
`executor.mjs`), as `variant_independent_python` and `variant_independent_node` do with the unchanged ones.

Rule enforced here: the piece occurs exactly once in its file and the change changes it, or the module refuses to
start (exit 2, saying so on stderr). An edit of the executor that moves or rewrites the piece then fails the
manifest row loudly, instead of running the correct executor under a buggy name. A change made in several places
of one file passes `old` and `new` as tuples of the same length; the rule holds for each piece.
"""

import hashlib
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Each independent executor: its folder, its files, the file it runs.
EXECUTORS = {
    "python": (os.path.join(HERE, "python"), ("executor.py", "schema.py", "strictjson.py"), "executor.py"),
    "node": (os.path.join(HERE, "node"), ("executor.mjs", "json.mjs", "schema.mjs"), "executor.mjs"),
    "example": (os.path.join(HERE, os.pardir, "python"), ("callproof_executor.py",), "callproof_executor.py"),
}


def changed_file(name, language, filename, old, new):
    """The text of `filename` with each piece of `old` replaced by its `new`, or exit 2 unless each occurs once."""
    source_dir, files, _ = EXECUTORS[language]
    path = os.path.join(source_dir, filename)
    if filename not in files:
        sys.stderr.write(f"{name}: {filename} is not one of the files of {source_dir}: {', '.join(files)}\n")
        sys.exit(2)
    with open(path, encoding="utf-8") as source_file:
        source = source_file.read()
    olds = (old,) if isinstance(old, str) else tuple(old)
    news = (new,) if isinstance(new, str) else tuple(new)
    if len(olds) != len(news) or not olds:
        sys.stderr.write(f"{name}: {len(olds)} pieces to change but {len(news)} replacements\n")
        sys.exit(2)
    for piece in olds:
        found = source.count(piece)
        if found != 1:
            sys.stderr.write(
                f"{name}: a piece of {path} it changes occurs {found} times, not once; "
                "update the module to the executor\n"
            )
            sys.exit(2)
    changed = source
    for piece, replacement in zip(olds, news):
        changed = changed.replace(piece, replacement, 1)
    if olds == news or changed == source:
        sys.stderr.write(f"{name}: the change to {path} changes nothing; update the module to the executor\n")
        sys.exit(2)
    return changed


def changed_folder(module_file, language, filename, old, new):
    """The folder holding the executor's files with the one change, written once per distinct change."""
    name = os.path.splitext(os.path.basename(module_file))[0]
    source_dir, files, _ = EXECUTORS[language]
    changed = changed_file(name, language, filename, old, new)
    texts = {}
    for each in files:
        if each == filename:
            texts[each] = changed
        else:
            with open(os.path.join(source_dir, each), encoding="utf-8") as source_file:
                texts[each] = source_file.read()
    digest = hashlib.sha256("\0".join(texts[each] for each in files).encode("utf-8")).hexdigest()[:16]
    folder = os.path.join(tempfile.gettempdir(), f"callproof-{name}-{digest}")
    if not os.path.isdir(folder):
        partial = f"{folder}.{os.getpid()}.partial"
        os.makedirs(partial, exist_ok=True)
        for each in files:
            with open(os.path.join(partial, each), "w", encoding="utf-8") as out:
                out.write(texts[each])
        try:
            os.rename(partial, folder)
        except OSError:
            if not os.path.isdir(folder):
                raise
            shutil.rmtree(partial, ignore_errors=True)  # another run put the same folder in place first
    return folder


def exec_python(module_file, filename, old, new):
    """Replaces this process with `sys.executable` running the independent Python executor changed in one place."""
    _exec_python(changed_folder(module_file, "python", filename, old, new), "python")


def exec_example(module_file, old, new):
    """Replaces this process with `sys.executable` running examples/python/callproof_executor.py changed."""
    _exec_python(changed_folder(module_file, "example", "callproof_executor.py", old, new), "example")


def _exec_python(folder, language):
    """Replaces this process with `sys.executable` running the file `language`'s executor runs, in `folder`."""
    script = os.path.join(folder, EXECUTORS[language][2])
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, script])


def exec_node(module_file, filename, old, new):
    """Replaces this process with `node` running the independent Node executor changed in one place."""
    folder = changed_folder(module_file, "node", filename, old, new)
    script = os.path.join(folder, EXECUTORS["node"][2])
    sys.stdout.flush()
    os.execvp("node", ["node", script])
