#!/usr/bin/env python3
"""List every command-line flag Megatron-LM's pretrain_gpt.py parser accepts, read statically.

    python3 scripts/megatron_lm_arguments.py MEGATRON_LM_CHECKOUT > tests/data/megatron_lm_arguments.txt

MEGATRON_LM_CHECKOUT is a work tree, or a bare git directory (then the files are read at HEAD with
`git show`). The flags are those of megatron/training/arguments.py: every '--flag' string given to an
add_argument call, and the flags that argument_utils.py ArgumentGroupFactory builds from a config
dataclass (every field not excluded and with init=True, inherited fields included: `foo_bar` is
--foo-bar; a bool defaulting to anything but False is --no-foo-bar and --disable-foo-bar; a field's
metadata argparse_meta arg_names replace the names). tests/megatron_lm_arguments_test.cpp checks
every flag the Megatron-LM writer can emit against the list.
"""
import ast
import os
import subprocess
import sys


class Source:
    def __init__(self, root):
        self.root = root
        self.bare = not os.path.isdir(os.path.join(root, "megatron"))

    def commit(self):
        args = ["git", "--git-dir", self.root] if self.bare else ["git", "-C", self.root]
        return subprocess.run(args + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()

    def read(self, path):
        if self.bare:
            r = subprocess.run(["git", "--git-dir", self.root, "show", "HEAD:" + path], capture_output=True, text=True)
            return r.stdout if r.returncode == 0 else None
        full = os.path.join(self.root, path)
        return open(full).read() if os.path.exists(full) else None


def module_path(src, module):
    for cand in (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"):
        if src.read(cand) is not None:
            return cand
    return None


def imports_of(tree):
    """name -> module for every `from M import name` (in functions too: arguments.py imports there)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                out[a.asname or a.name] = "." * node.level + node.module
    return out


def find_class(src, module, name, depth=0):
    """(class node, module, module tree) for `name` as seen from `module`, following re-exports."""
    path = module_path(src, module)
    if path is None or depth > 6:
        return None
    tree = ast.parse(src.read(path))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node, module, tree
    imp = imports_of(tree)
    if name in imp:
        target = imp[name]
        if target.startswith("."):  # relative import
            base = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
            dots = len(target) - len(target.lstrip("."))
            base = base[: len(base) - (dots - 1)] if dots > 1 else base
            target = ".".join(base + ([target.lstrip(".")] if target.lstrip(".") else []))
        return find_class(src, target, name, depth + 1)
    return None


def literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def is_bool_type(ann):
    text = ast.unparse(ann) if ann is not None else ""
    return text in ("bool", "Optional[bool]", "bool | None", "typing.Optional[bool]")


def dataclass_flags(src, module, name, exclude, seen=None):
    found = find_class(src, module, name)
    if found is None:
        sys.exit("cannot find class %s from %s" % (name, module))
    cls, cls_module, tree = found
    flags = []
    # Inherited fields first (dataclasses.fields order), from bases that are classes of the source.
    for base in cls.bases:
        base_name = ast.unparse(base).split(".")[-1]
        if base_name in ("object", "ABC", "Generic"):
            continue
        if find_class(src, cls_module, base_name) is not None:
            flags += dataclass_flags(src, cls_module, base_name, exclude)
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        field = stmt.target.id
        if field in exclude or "ClassVar" in ast.unparse(stmt.annotation):
            continue
        default, meta_names, init = None, None, True
        value = stmt.value
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field":
            for kw in value.keywords:
                if kw.arg == "default":
                    default = literal(kw.value)
                elif kw.arg == "init":
                    init = literal(kw.value) is not False
                elif kw.arg == "metadata" and isinstance(kw.value, ast.Dict):
                    for k, v in zip(kw.value.keys, kw.value.values):
                        if literal(k) == "argparse_meta" and isinstance(v, ast.Dict):
                            for k2, v2 in zip(v.keys, v.values):
                                if literal(k2) == "arg_names":
                                    meta_names = literal(v2)
        elif value is not None:
            default = literal(value)
        if not init:
            continue
        dashed = field.replace("_", "-")
        if meta_names:
            flags += list(meta_names)
        elif is_bool_type(stmt.annotation) and default is not False:
            flags += ["--no-" + dashed, "--disable-" + dashed]
        else:
            flags.append("--" + dashed)
    return flags


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = Source(sys.argv[1])
    path = "megatron/training/arguments.py"
    tree = ast.parse(src.read(path))
    imports = imports_of(tree)
    flags = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = ast.unparse(node.func)
        if func.endswith("add_argument"):
            for a in node.args:
                v = literal(a)
                if isinstance(v, str) and v.startswith("--"):
                    flags.add(v)
        elif func.split(".")[-1] == "ArgumentGroupFactory" and node.args:
            cls = ast.unparse(node.args[0])
            exclude = set()
            for kw in node.keywords:
                if kw.arg == "exclude":
                    v = literal(kw.value)
                    if v is None and isinstance(kw.value, ast.Name):  # a list bound to a name in the function
                        for n in ast.walk(tree):
                            if isinstance(n, ast.Assign) and any(
                                isinstance(t, ast.Name) and t.id == kw.value.id for t in n.targets):
                                v = literal(n.value)
                    exclude = set(v or [])
            if cls not in imports:
                sys.exit("cannot find the import of %s" % cls)
            flags.update(dataclass_flags(src, imports[cls], cls, exclude))
    print("# Every flag NVIDIA/Megatron-LM's pretrain_gpt.py parser accepts (megatron/training/arguments.py and")
    print("# the config dataclasses its ArgumentGroupFactory turns into flags), at commit %s." % src.commit())
    print("# Written by scripts/megatron_lm_arguments.py; read by tests/megatron_lm_arguments_test.cpp.")
    for f in sorted(flags):
        print(f)


if __name__ == "__main__":
    main()
