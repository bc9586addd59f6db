#!/usr/bin/env python3
"""Check src/recipebook/emit/entry_points.cpp against the entry points' own source.

    python3 scripts/check_entry_points.py --bridge PATH/Megatron-Bridge --megatron-lm PATH/Megatron-LM

Reads the checkouts' files (the commit the tables name, or a newer one to see what moved) without
importing them: run_recipe.py's and argument_parser.py's add_argument calls (flags, choices) and
DATASET_PRESETS; for pretrain_gpt.py, arguments.py's add_argument calls and the config dataclass
fields its ArgumentGroupFactory turns into flags (a field foo_bar is --foo-bar, a bool defaulting
to True is --no-foo-bar / --disable-foo-bar, or the spelling its argparse_meta names). Prints each
table row the source does not have, each choice it does not list; exit 1 when there is any.
"""
import argparse
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "src/recipebook/emit/entry_points.cpp"


def table_rows(text, array):
    """(flag, alias, kind, choices-array name) of one kXxxArgs table."""
    body = text[text.index(f"constexpr auto {array} ="):]
    body = body[: body.index("});")]
    return re.findall(r'A\{"([^"]+)", "([^"]*)", V::(\w+)(?:, (\w+))?\}', body)


def string_arrays(text):
    """name -> list of strings, for every constexpr std::to_array<std::string_view> in the file."""
    out = {}
    for m in re.finditer(r"constexpr auto (\w+) =\s*std::to_array<std::string_view>\(\s*\{(.*?)\}\);", text, re.S):
        out[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))
    return out


def add_arguments(path):
    """flag -> list of choices (None when free) for every add_argument call with literal names."""
    out = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            choices = None
            for k in node.keywords:
                if k.arg == "choices":
                    try:
                        choices = list(ast.literal_eval(k.value))
                    except ValueError:
                        choices = None
            for n in names:
                out[n] = choices
    return out


def dataclass_flags(paths):
    """Flags the ArgumentGroupFactory derives from config dataclass fields (megatron/training/argument_utils.py)."""
    flags = set()
    field = re.compile(r"^    (\w+)\s*:\s*([^=\n]+?)\s*(?:=\s*(.*))?$")
    for path in paths:
        for line in path.read_text().splitlines():
            m = field.match(line)
            if not m:
                continue
            name, typ, default = m.group(1), m.group(2), m.group(3) or ""
            flags.add("--" + name.replace("_", "-"))
            if typ.strip() == "bool" and default.strip().startswith("True"):
                flags.add("--no-" + name.replace("_", "-"))
                flags.add("--disable-" + name.replace("_", "-"))
        flags.update(re.findall(r'"arg_names":\s*\["(--[\w-]+)"', path.read_text()))
    return flags


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bridge", type=pathlib.Path, required=True)
    ap.add_argument("--megatron-lm", type=pathlib.Path, required=True)
    args = ap.parse_args()
    text = TABLE.read_text()
    arrays = string_arrays(text)
    problems = []

    def check(array, flags, derived=frozenset()):
        for flag, alias, kind, choices in table_rows(text, array):
            for spelling in filter(None, (flag, alias)):
                if spelling not in flags and spelling not in derived:
                    problems.append(f"{array}: {spelling} is not in the source")
            src = flags.get(flag)
            if choices and src is not None:
                extra = [c for c in arrays.get(choices, []) if c not in src]
                if extra:
                    problems.append(f"{array}: {flag} choices {extra} are not in the source's {src}")

    rr = add_arguments(args.bridge / "scripts/training/run_recipe.py")
    presets = re.findall(r'^    "([\w-]+)":', (args.bridge / "src/megatron/bridge/recipes/utils/dataset_utils.py").read_text(), re.M)
    rr["--dataset"] = presets
    body = text[text.index("constexpr auto kPresets ="):]
    ours = re.findall(r'\{"([\w-]+)", "(?:pretrain|finetune|)", (?:true|false)\}', body[: body.index("});")])
    if sorted(ours) != sorted(presets):
        problems.append(f"kPresets {sorted(ours)} differ from DATASET_PRESETS {sorted(presets)}")
    check("kRunRecipeArgs", rr)
    check("kRunScriptArgs", add_arguments(args.bridge / "scripts/performance/argument_parser.py"))
    mlm = args.megatron_lm / "megatron"
    explicit = add_arguments(mlm / "training/arguments.py")
    configs = [mlm / "core/transformer/transformer_config.py", mlm / "core/model_parallel_config.py",
               mlm / "core/distributed/distributed_data_parallel_config.py", mlm / "core/optimizer/optimizer_config.py",
               *sorted((mlm / "training/config").glob("*.py"))]
    check("kPretrainGptArgs", explicit, dataclass_flags([p for p in configs if p.exists()]))
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
