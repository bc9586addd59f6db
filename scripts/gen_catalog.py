#!/usr/bin/env python3
"""Generate the catalog's YAML (models, hardware, recipes) from the reference data; recipebook checks it.

    python3 scripts/gen_catalog.py [--data ../shared/data] [--build build/ci]   # (re)write, then check
    python3 scripts/gen_catalog.py --check                                       # check only (no writes)

Inputs: the four CSVs of the reference data (see its README.md) and the tables in this script and in
scripts/*.tsv. Outputs, under catalog/: models/<slug>.yaml, hardware/<name>.yaml,
recipes/<model-slug>/<gpu>/<name>.yaml. The output is deterministic (sorted, no timestamps). Every
generated file starts with GENERATED_MARK; files without it are hand-written (seed records, schemas)
and are never written or removed by this script.

To add a model architecture: add its row to models.csv (or a stub alias to STUB_MODELS) and its
structured facts to ARCH_EXTRA below, with the public source in `source`.

This script writes records and never reads one back (only the first lines of an existing file, for
GENERATED_MARK, and a hardware file's fitted `efficiency:` and curated `microbenchmarks:` blocks, kept as text). The check is the
C++ one (`check` below): rebuilding recipebook loads the embedded catalog with the project's loader
and schema validator (a catalog error fails the build), then `recipebook check --builtin` checks
every record. Python standard library only. The writer types plain scalars by the YAML 1.2 core
schema, as the C++ loader does (src/recipebook/catalog/yaml_scalar.hpp), and quotes a string that
would read back as another type.
"""

import json
import re

# --------------------------------------------------------------------------------------------------
# Scalars: YAML 1.2 core schema
# --------------------------------------------------------------------------------------------------

_NULL = {"null", "Null", "NULL", "~", ""}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$")
_YAML11_BOOL = {"y", "n", "yes", "no", "on", "off"}


def type_plain(text):
    """The value of a plain scalar by the YAML 1.2 core schema."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text)
    if _FLOAT.match(text):
        return float(text.replace("Inf", "inf").replace("INF", "inf"))
    return text


# --------------------------------------------------------------------------------------------------
# Writer
# --------------------------------------------------------------------------------------------------

_PLAIN_START_BAD = set("-?:,[]{}#&*!|>'\"%@`")


def _plain_ok(s, flow):
    if s == "" or s != s.strip() or "\n" in s or "\t" in s:
        return False
    if s[0] in _PLAIN_START_BAD:
        # "-" followed by a non-space is legal in YAML but looks like a number or a sequence; quote it.
        return False
    if ": " in s or " #" in s or s.endswith(":"):
        return False
    if flow and any(c in s for c in ",[]{}"):
        return False
    if type_plain(s) is not s and not isinstance(type_plain(s), str):
        return False
    if s.lower() in _YAML11_BOOL:
        return False
    return all(0x20 <= ord(c) < 0x7F or ord(c) > 0xA0 for c in s)


def _quote(s):
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _fmt_float(x):
    if x != x:
        return ".nan"
    if x in (float("inf"), float("-inf")):
        return ".inf" if x > 0 else "-.inf"
    r = repr(x)
    if "e" in r or "E" in r:
        mant, exp = r.split("e")
        if "." not in mant:
            mant += ".0"
        return mant + "e" + exp
    return r


def scalar_text(v, flow=False):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _fmt_float(v)
    if isinstance(v, str):
        return v if _plain_ok(v, flow) else _quote(v)
    raise TypeError("cannot write %r" % (v,))


def _is_scalar(v):
    return v is None or isinstance(v, (bool, int, float, str))


def _flow(v):
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{" + ", ".join("%s: %s" % (scalar_text(k, True), _flow(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return scalar_text(v, flow=True)


def _flowable(v):
    if _is_scalar(v):
        return not (isinstance(v, str) and "\n" in v)
    if isinstance(v, list):
        return all(_flowable(x) and not isinstance(x, (dict, list)) for x in v)
    if isinstance(v, dict):
        return all(_is_scalar(x) and _flowable(x) for x in v.values())
    return False


class Comment(str):
    """A value wrapper: written as the value followed by `  # text` (scalars only)."""


def with_comment(value, text):
    return (value, Comment(text))


def _emit(v, indent, out, flow_dicts):
    pad = " " * indent
    if isinstance(v, dict):
        for k, x in v.items():
            comment = ""
            if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], Comment):
                x, comment = x[0], "  # " + x[1]
            key = scalar_text(k)
            if isinstance(x, str) and "\n" in x:
                chomp = "" if x.endswith("\n") else "-"
                out.append("%s%s: |%s%s" % (pad, key, chomp, comment))
                for line in x.rstrip("\n").split("\n"):
                    out.append((pad + "  " + line) if line else "")
            elif _is_scalar(x):
                out.append("%s%s: %s%s" % (pad, key, scalar_text(x), comment))
            elif isinstance(x, (list, dict)) and not x:
                out.append("%s%s: %s%s" % (pad, key, "[]" if isinstance(x, list) else "{}", comment))
            elif (isinstance(x, list) or (isinstance(x, dict) and flow_dicts)) and _flowable(x) \
                    and len(pad) + len(key) + 2 + len(_flow(x)) <= 110:
                out.append("%s%s: %s%s" % (pad, key, _flow(x), comment))
            else:
                out.append("%s%s:%s" % (pad, key, comment))
                _emit(x, indent + 2, out, True)
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                _emit(x, indent + 2, sub, True)
                sub[0] = pad + "- " + sub[0][indent + 2:]
                out.extend(sub)
            elif isinstance(x, list) and x and not _flowable(x):
                sub = []
                _emit(x, indent + 2, sub, True)
                sub[0] = pad + "- " + sub[0][indent + 2:]
                out.extend(sub)
            elif _is_scalar(x) or _flowable(x):
                out.append("%s- %s" % (pad, _flow(x) if not _is_scalar(x) else scalar_text(x)))
            else:
                raise TypeError("cannot write %r" % (x,))
    else:
        raise TypeError("top level must be a mapping")


def dump(doc, header_comments=()):
    """YAML text of a mapping; deterministic (keys in insertion order)."""
    out = ["# " + c if c else "#" for c in header_comments]
    _emit(doc, 0, out, False)
    return "\n".join(out) + "\n"


# ==================================================================================================
# Reference facts not in the CSVs (each with its public source)
# ==================================================================================================

import argparse
import csv
import os
import sys
from collections import OrderedDict, defaultdict

GENERATED_MARK = "Generated by scripts/gen_catalog.py from ../shared/data; do not edit (edit the script or the data)."

# Hand-written files the script never writes or removes (also protected by lacking GENERATED_MARK).
PROTECTED = {
    "catalog/recipes/qwen3.5-397b-a17b/b200/attune-48gpu-tp2-pp6-ep8.yaml",
    "catalog/recipes/qwen3.5-397b-a17b/gb300/qwen35_vl_397b_a17b_pretrain_config.yaml",
    "catalog/recipes/qwen3.5-35b-a3b/gb300/qwen35_vl_35b_a3b_pretrain_16gpu_gb300_bf16_config.yaml",
    "catalog/recipes/qwen3.5-35b-a3b/gb300/qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_library_config.yaml",
    "catalog/recipes/qwen3.5-35b-a3b/h100/qwen35_vl_35b_a3b_pretrain_config.yaml",
    "catalog/schema/recipe.schema.yaml",
    "catalog/schema/model.schema.yaml",
    "catalog/schema/hardware.schema.yaml",
}

# --- hardware --------------------------------------------------------------------------------------

# gpus.csv `name` -> (catalog name, display, aliases, GPUs per node in Megatron-Bridge launchers,
# supported precisions beyond bf16, node note). Aliases: every spelling the CSVs and seeds use.
GPU_TABLE = OrderedDict([
    ("A100-80GB-SXM", ("a100", "A100-SXM-80GB", ["A100", "A100-80GB-SXM", "a100-80gb", "a100-sxm", "dgx-a100"], 8, [],
                       "HGX/DGX A100: 8 GPUs per node, NVLink 3 within the node")),
    ("H100-SXM", ("h100", "H100-SXM", ["H100", "H100-SXM", "h100-sxm", "h100-80gb", "dgx-h100", "DGX-H100"], 8,
                  ["fp8_cs", "fp8_ds", "fp8_blockwise"], "HGX/DGX H100: 8 GPUs per node (data/README.md)")),
    ("H200-SXM", ("h200", "H200-SXM", ["H200", "H200-SXM", "h200-sxm", "h200-141gb", "dgx-h200"], 8,
                  ["fp8_cs", "fp8_ds", "fp8_blockwise"], "HGX H200: 8 GPUs per node")),
    ("B200 (HGX, 1000 W)", ("b200", "B200 (HGX, 1000 W)", ["B200", "hgx-b200", "dgx-b200", "DGX-B200"], 8,
                            ["fp8_cs", "fp8_ds", "fp8_blockwise", "mxfp8", "nvfp4"], "HGX/DGX B200: 8 GPUs per node (data/README.md)")),
    ("B300 (HGX)", ("b300", "B300 (HGX)", ["B300", "hgx-b300", "dgx-b300", "DGX-B300"], 8,
                    ["fp8_cs", "fp8_ds", "fp8_blockwise", "mxfp8", "nvfp4"], "HGX/DGX B300: 8 GPUs per node (data/README.md)")),
    ("GB200 (NVL72, 1200 W)", ("gb200", "GB200 (NVL72, 1200 W)", ["GB200", "gb200-nvl72", "dgx-gb200", "DGX-GB200"], 4,
                               ["fp8_cs", "fp8_ds", "fp8_blockwise", "mxfp8", "nvfp4"],
                               "4 GPUs per compute tray in Megatron-Bridge launchers; NVLink domain 72 (data/README.md)")),
    ("GB300 (NVL72, 1400 W)", ("gb300", "GB300 (NVL72, 1400 W)", ["GB300", "gb300-nvl72", "dgx-gb300", "DGX-GB300"], 4,
                               ["fp8_cs", "fp8_ds", "fp8_blockwise", "mxfp8", "nvfp4"],
                               "4 GPUs per compute tray in Megatron-Bridge launchers; NVLink domain 72 (data/README.md)")),
    ("MI300X", ("mi300x", "Instinct MI300X", ["MI300X", "instinct-mi300x"], 8, ["fp8_cs"],
                "8 GPUs per platform (Infinity Fabric)")),
    ("MI355X", ("mi355x", "Instinct MI355X", ["MI355X", "instinct-mi355x"], 8, ["fp8_cs", "mxfp8"],
                "8 GPUs per platform (Infinity Fabric)")),
    ("TPU v5p", ("tpu-v5p", "TPU v5p", ["TPU v5p", "v5p", "tpu_v5p"], 4, [],
                 "4 chips per TPU v5p host (Cloud TPU docs; not in the reference data); ICI domain is the pod (8960 chips)")),
])

# GPUs that recipes name but gpus.csv lacks: stubs without figures.
GPU_STUBS = OrderedDict([
    ("vr200", ("VR200", ["VR200", "vera-rubin", "vr200-nvl144"],
               "Named by Megatron-Bridge perf recipes (perf_recipes/*/vr200/*.py in megatron_bridge_recipes.csv); "
               "no published figures in the reference data (gpus.csv), so no memory, peak or bandwidth here.")),
    ("r100", ("R100", ["R100", "rubin"],
              "Named by Megatron-Bridge perf recipes (perf_recipes/llama/r100/llama3.py in megatron_bridge_recipes.csv); "
              "no published figures in the reference data (gpus.csv), so no memory, peak or bandwidth here.")),
])

# The scale-out NICs of a node where the catalog entry describes another node than gpus.csv's cloud
# instance: catalog name -> (Gbit/s per GPU, source). The a100 entry is a DGX A100 (its host block,
# alias dgx-a100, the Megatron-LM Selene runs of bench/data/megatron_a100_selene.csv): eight 200 Gb/s
# HDR InfiniBand NICs per node for the GPUs, not p4de's 400 Gb/s EFA per node.
SCALEOUT_TABLE = OrderedDict([
    ("a100", ("200", "200 Gbit/s per GPU: DGX A100, one HDR NIC per GPU (SCALEOUT_TABLE in scripts/gen_catalog.py)",
              "node network: DGX A100 (scripts/gen_catalog.py SCALEOUT_TABLE)")),
])

# The host side of each node, for optimizer CPU offload and activation offloading (docs/model.md
# "Offload"): catalog name -> (host link, its bandwidth per GPU and direction, host memory per node,
# host memory bandwidth per node, source). Nodes as in GPU_TABLE (8-GPU HGX/DGX; a 4-GPU, 2-Grace
# compute tray on NVL72). Figures looked up 2026-12-01. PCIe Gen5 x16 is 32 GT/s x 16 lanes = 64 GB/s
# per direction (NVIDIA H100/H200 datasheets: "PCIe Gen5: 128 GB/s", both directions); DDR5 bandwidth
# is channels x MT/s x 8 bytes per socket (Intel ARK: 8 channels on the Xeons below).
HOST_DATE = "2026-12-01"
HOST_TABLE = OrderedDict([
    ("a100", ("PCIe Gen4 x16", "32 GB/s", "1 TB", "409.6 GB/s",
              "DGX A100: 2x AMD EPYC 7742, 1 TB DDR4 (hardwaretimes.com/nvidias-ampere-based-dgx-a100-servers-leverage-amd-epyc-rome-cpus-instead-of-intel-xeon; "
              "2 TB optional); EPYC 7742 8 channels DDR4-3200 = 204.8 GB/s per socket; A100 PCIe Gen4 x16 = 32 GB/s per direction")),
    ("h100", ("PCIe Gen5 x16", "64 GB/s", "2 TB", "614.4 GB/s",
              "DGX H100: dual Xeon Platinum 8480C with PCIe 5.0, 2 TB DDR5 (docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/core-components.html); "
              "MLPerf Inference v3.1 Dell XE9680 H100 system json: PCIe Gen5 x16, 2 TB host memory; 8480C 8 channels DDR5-4800 = 307.2 GB/s per socket")),
    ("h200", ("PCIe Gen5 x16", "64 GB/s", "2 TB", "614.4 GB/s",
              "DGX H200: dual Xeon Platinum 8480C, 2 TB DDR5 (docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/core-components.html); "
              "MLPerf Inference v4.1 NVIDIA H200-SXM-141GBx8 system json: PCIe Gen5 x16, 2 TB (32x 64GB); 8 channels DDR5-4800 per socket")),
    ("b200", ("PCIe Gen5 x16", "64 GB/s", "2 TB", "716.8 GB/s",
              "DGX B200 user guide (docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html): 2x Xeon 8570 PCIe Gen5, 2 TB in 32 DIMMs (upgradable to 4 TB); "
              "MLPerf Inference v6.0 Nebius B200 system json: PCIe Gen5 x16; Xeon 8570 8 channels DDR5-5600 = 358.4 GB/s per socket")),
    ("b300", ("PCIe Gen5 x16", "64 GB/s", "4 TB", "819.2 GB/s",
              "HGX B300 server ASUS XA NB3I-E12: 2x Xeon 6776P, 32x 128 GB DDR5 = 4 TB (neocloud.kedios.io/planning-summary-reports/B300-Single-Rack-Server-Unit-Architecture.html); "
              "the B300 links are PCIe Gen6 but the Xeon 6 host root ports are Gen5, so 64 GB/s per direction; Xeon 6776P 8 channels DDR5-6400 = 409.6 GB/s per socket; "
              "no NVIDIA DGX B300 figure found")),
    ("gb200", ("NVLink-C2C", "225 GB/s", "960 GB", "1024 GB/s",
               "GB200 superchip: one Grace with up to 480 GB LPDDR5X at 512 GB/s and two B200 on NVLink-C2C 900 GB/s bidirectional "
               "(yobitel.com/knowledge-base/nvidia-gb200; NVIDIA GB200 NVL72 product page), so 450 GB/s both ways = 225 GB/s per direction per GPU; "
               "a 4-GPU tray holds 2 Grace = 960 GB (MLPerf Inference v6.1 Crusoe GB200-NVL72 json reports 1.87 TB per 4-GPU node: larger Grace memory exists)")),
    ("gb300", ("NVLink-C2C", "225 GB/s", "960 GB", "1024 GB/s",
               "GB300 NVL compute tray: 4 Blackwell Ultra GPUs and 2 Grace CPUs (docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/components.html); "
               "Grace up to 480 GB LPDDR5X at 512 GB/s, NVLink-C2C 900 GB/s bidirectional per Grace and its two GPUs, as GB200")),
])

# The host CPU of each node in HOST_TABLE, as its source there names it, and its family (x86 or
# grace): the time model's per-call host costs follow the family (docs/model.md "Time", host floor).
HOST_CPU = {
    "a100": ("2x AMD EPYC 7742", "x86"),
    "h100": ("2x Xeon Platinum 8480C", "x86"),
    "h200": ("2x Xeon Platinum 8480C", "x86"),
    "b200": ("2x Xeon Platinum 8570", "x86"),
    "b300": ("2x Xeon 6776P", "x86"),
    "gb200": ("2x NVIDIA Grace (one per 2 GPUs)", "grace"),
    "gb300": ("2x NVIDIA Grace (one per 2 GPUs)", "grace"),
}

DEFAULT_EFFICIENCY = OrderedDict([("gemm", 0.6), ("attention", 0.5), ("hbm", 0.7), ("nvlink", 0.7),
                                  ("scaleout", 0.6), ("overlap", 0.5)])

MEASURED_GPU = {"DGX-H100": "h100", "DGX-B200": "b200", "DGX-B300": "b300", "DGX-GB200": "gb200", "DGX-GB300": "gb300"}

# --- models ----------------------------------------------------------------------------------------

def _attn(heads, kv, hd, vhd=None, **flags):
    a = OrderedDict([("heads", heads), ("kv_heads", kv), ("head_dim", hd), ("v_head_dim", vhd or hd)])
    for k in ("output_gate", "qkv_bias", "out_bias", "qk_norm", "sinks"):
        a[k] = bool(flags.get(k, False))
    return a


def _moe(experts, top_k, ffn, shared=0, shared_ffn=0, shared_gate=False, expert_bias=False, router_bias=False):
    return OrderedDict([("experts", experts), ("top_k", top_k), ("ffn", ffn), ("shared_experts", shared),
                        ("shared_ffn", shared_ffn), ("shared_gate", shared_gate), ("expert_bias", expert_bias),
                        ("router_bias", router_bias)])


def _vision(layers, hidden, ffn, heads, patch, temporal, merge, out):
    return OrderedDict([("layers", layers), ("hidden", hidden), ("ffn", ffn), ("heads", heads), ("patch", patch),
                        ("temporal_patch", temporal), ("spatial_merge", merge), ("out_hidden", out)])


SRC_QWEN35_VISION = ("vision_config from public copies of the Qwen3.5 config.json (depth, hidden_size, intermediate_size, "
                     "num_heads, patch_size 16, temporal_patch_size 2, spatial_merge_size 2, out_hidden_size)")
SRC_GEMMA3 = ("public copy of google/gemma-3-12b config.json: layer_types 5 x sliding_attention then full_attention, "
              "sliding_window 1024, hidden_activation gelu_pytorch_tanh (GeGLU), query/key RMSNorm; "
              "SigLIP vision tower 27 layers, hidden 1152, ffn 4304, 16 heads, patch 14, image 896 (models.csv); "
              "vision spatial_merge 4 stands for Gemma 3's 4x4 average pooling (4096 patches -> 256 tokens per image), "
              "temporal_patch 1 (images only), out_hidden = the text hidden size")
SRC_NEMOH = "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/nemotronh/nemotron_h_provider.py (hybrid_layer_pattern, mamba dims, squared_relu)"
SRC_GPTOSS = ("public copies of openai/gpt-oss-20b config.json: layer_types alternate sliding_attention (first) / "
              "full_attention, sliding_window 128, attention_bias true (q/k/v/o biases), experts with biases, "
              "router with bias, SwiGLU clamped at swiglu_limit 7.0")

# Structured facts that models.csv holds only in notes (or not at all), per models.csv `name`.
# Keys: arch (overrides/additions to the architecture), src (extra sources), unverified (what remains
# unverified), mtp (MTP layers).
ARCH_EXTRA = {
    "Llama-3-8B": dict(unverified="max_position 8192 not re-verified (models.csv)"),
    "Llama-3-70B": dict(unverified="max_position 8192 not re-verified (models.csv)"),
    "Llama-3.1-405B": dict(unverified="max_position 131072 not re-verified (models.csv)"),
    "Qwen3-0.6B": dict(qk_norm=True), "Qwen3-1.7B": dict(qk_norm=True), "Qwen3-4B": dict(qk_norm=True),
    "Qwen3-8B": dict(qk_norm=True), "Qwen3-14B": dict(qk_norm=True), "Qwen3-32B": dict(qk_norm=True),
    "Qwen3-30B-A3B": dict(qk_norm=True, note_ffn="intermediate_size 6144 is unused: every layer is MoE"),
    "Qwen3-235B-A22B": dict(qk_norm=True, unverified="max_position 40960 assumed same as the Qwen3 family (models.csv)"),
    "Qwen3-Next-80B-A3B": dict(qk_norm=True, output_gate=True, gdn=(16, 32, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                               shared_gate=True, mtp=1,
                               src="GDN dims, attention output gate and MTP from models.csv notes; shared_expert_gate as in the Qwen3-Next HF modeling (Qwen2-MoE style)"),
    "Qwen3.5-397B-A17B": dict(qk_norm=True, output_gate=True, gdn=(16, 64, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                              shared_gate=True, mtp=1, vision=_vision(27, 1152, 4304, 16, 16, 2, 2, 4096),
                              src="seed 002 active-parameter count 16,331,407,360 reproduced by this shape; " + SRC_QWEN35_VISION),
    "Qwen3.5-122B-A10B": dict(qk_norm=True, output_gate=True, gdn=(16, 64, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                              shared_gate=True, vision=_vision(27, 1152, 4304, 16, 16, 2, 2, 3072),
                              src="vision out_hidden 3072 from models.csv",
                              unverified="vision tower depth/width assumed equal to the rest of the Qwen3.5 family >= 9B (27 x 1152); MTP layer count not verified (omitted)"),
    "Qwen3.5-35B-A3B": dict(qk_norm=True, output_gate=True, gdn=(16, 32, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                            shared_gate=True, mtp=1, vision=_vision(27, 1152, 4304, 16, 16, 2, 2, 2048),
                            src="vision_config depth 27 from a public Qwen3.6-35B-A3B config copy (same architecture); " + SRC_QWEN35_VISION),
    "Qwen3.5-27B": dict(qk_norm=True, output_gate=True, gdn=(16, 48, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                        vision=_vision(27, 1152, 4304, 16, 16, 2, 2, 5120), src=SRC_QWEN35_VISION,
                        unverified="MTP layer count not verified for Qwen3.5-27B (omitted)"),
    "Qwen3.5-9B": dict(qk_norm=True, output_gate=True, gdn=(16, 32, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                       vision=_vision(27, 1152, 4304, 16, 16, 2, 2, 4096), src=SRC_QWEN35_VISION,
                       unverified="MTP layer count not verified (omitted)"),
    "Qwen3.5-4B": dict(qk_norm=True, output_gate=True, gdn=(16, 32, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                       vision=_vision(24, 1024, 4096, 16, 16, 2, 2, 2560),
                       src="public Qwen3.5-4B config excerpt (linear_num_key_heads 16, linear_num_value_heads 32, tie_word_embeddings true); " + SRC_QWEN35_VISION,
                       unverified="MTP layer count not verified (omitted)"),
    "Qwen3.5-0.8B": dict(qk_norm=True, output_gate=True, gdn=(16, 16, 128, 128, 4), pattern=["gdn", "gdn", "gdn", "attention"],
                         vision=_vision(12, 768, 3072, 12, 16, 2, 2, 1024),
                         src="public Qwen3.5-0.8B config copies: linear_num_key_heads 16, linear_num_value_heads 16, head dims 128 (verifies the GDN head counts models.csv left unverified); " + SRC_QWEN35_VISION,
                         unverified="MTP layer count not verified (omitted)"),
    "DeepSeek-V3": dict(mla=True, mtp=1, src="MLA ranks/dims, first 3 dense layers, sigmoid router whose e_score_correction_bias is not a weight (no router bias, no shared-expert gate)"),
    "Kimi-K2": dict(mla=True, src="DeepSeek-V3 architecture (MLA + MoE), 1 first dense layer, no MTP layers (none in models.csv)"),
    "GLM-4.5": dict(qk_norm=True, qkv_bias=True, mtp=1, src="qkv bias, qk-norm, MTP 1 layer from models.csv notes (THUDM/slime glm4.5-355B-A32B.sh)"),
    "GLM-4.5-Air": dict(qk_norm=False, qkv_bias=True, mtp=1, src="qkv bias, no qk-norm, MTP 1 layer from models.csv notes"),
    "gpt-oss-120b": dict(qkv_bias=True, out_bias=True, sinks=True, window=[128, 0], expert_bias=True, router_bias=True, src=SRC_GPTOSS),
    "gpt-oss-20b": dict(qkv_bias=True, out_bias=True, sinks=True, window=[128, 0], expert_bias=True, router_bias=True, src=SRC_GPTOSS),
    "Mixtral-8x7B": dict(unverified="max_position 32768 not re-verified (models.csv)"),
    "Gemma-3-4B": dict(qk_norm=True, activation="geglu", window=[1024, 1024, 1024, 1024, 1024, 0],
                       vision=_vision(27, 1152, 4304, 16, 14, 1, 4, 2560), src=SRC_GEMMA3),
    "Gemma-3-12B": dict(qk_norm=True, activation="geglu", window=[1024, 1024, 1024, 1024, 1024, 0],
                        vision=_vision(27, 1152, 4304, 16, 14, 1, 4, 3840), src=SRC_GEMMA3),
    "Gemma-3-27B": dict(qk_norm=True, activation="geglu", window=[1024, 1024, 1024, 1024, 1024, 0],
                        vision=_vision(27, 1152, 4304, 16, 14, 1, 4, 5376), src=SRC_GEMMA3),
    "Nemotron-H-8B": dict(activation="squared_relu", mamba=(128, 64, 128, 8, 4),
                          hybrid="M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
                          src=SRC_NEMOH + "; vocab 131072 = the HF NemotronHConfig default, which describes this 8B model",
                          unverified="vocab 131072 not read from the released 8B config.json itself"),
    "Nemotron-H-56B": dict(activation="squared_relu", mamba=(256, 64, 256, 8, 4),
                           hybrid=("M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-"
                                   "M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"),
                           src=SRC_NEMOH, unverified="vocab 131072 assumed equal to Nemotron-H-8B (not read from the 56B config.json)"),
    "Nemotron-3-Nano-30B-A3B": dict(activation="squared_relu", mamba=(64, 64, 128, 8, 4), max_position=262144,
                                    hybrid="MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
                                    src=("public copies of the NVIDIA-Nemotron-3-Nano-30B-A3B config.json: hybrid_override_pattern, "
                                         "vocab_size 131072, max_position_embeddings 262144, mlp_hidden_act relu2, attention_bias false, "
                                         "moe_shared_expert_intermediate_size 3712, n_groups 8, conv_kernel 4; " + SRC_NEMOH)),
}

# Names under which the 32 models appear elsewhere (Megatron-Bridge stems; measured-table names).
MODEL_ALIASES = {
    "Llama-3-8B": ["llama3_8b", "llama3-8b", "meta-llama/Meta-Llama-3-8B"],
    "Llama-3-70B": ["llama3_70b", "LLAMA3_70B", "llama3-70b", "meta-llama/Meta-Llama-3-70B"],
    "Llama-3.1-405B": ["llama31_405b", "LLAMA3.1_405B", "llama3.1-405b", "meta-llama/Meta-Llama-3.1-405B"],
    "Qwen3-0.6B": ["qwen3_600m", "qwen3-0.6b"],
    "Qwen3-1.7B": ["qwen3_1p7b", "qwen3-1.7b"],
    "Qwen3-4B": ["qwen3_4b"], "Qwen3-8B": ["qwen3_8b"], "Qwen3-14B": ["qwen3_14b"], "Qwen3-32B": ["qwen3_32b"],
    "Qwen3-30B-A3B": ["qwen3_30b_a3b", "Qwen3_30B_a3B", "qwen3-30b-a3b"],
    "Qwen3-235B-A22B": ["qwen3_235b_a22b", "qwen3-235b-a22b"],
    "Qwen3-Next-80B-A3B": ["qwen3_next_80b_a3b", "Qwen3_Next_80B", "Qwen3_Next_80B_a3B", "qwen3-next-80b-a3b"],
    "Qwen3.5-397B-A17B": ["qwen35_vl_397b_a17b", "qwen3.5-397b-a17b"],
    "Qwen3.5-122B-A10B": ["qwen35_vl_122b_a10b", "qwen3.5-122b-a10b"],
    "Qwen3.5-35B-A3B": ["qwen35_vl_35b_a3b", "qwen35_vl_35b_a3b_long_context", "qwen35_text_35b_a3b", "qwen3.5-35b-a3b"],
    "Qwen3.5-27B": ["qwen35_vl_27b", "qwen3.5-27b"],
    "Qwen3.5-9B": ["qwen35_vl_9b", "qwen35_text_9b", "qwen3.5-9b"],
    "Qwen3.5-4B": ["qwen35_vl_4b", "qwen3.5-4b"],
    "Qwen3.5-0.8B": ["qwen35_vl_800m", "qwen3.5-0.8b"],
    "DeepSeek-V3": ["deepseek_v3", "DeepSeekV3", "deepseek-v3"],
    "Kimi-K2": ["kimi_k2", "kimi-k2", "Kimi-K2-Instruct"],
    "GLM-4.5": ["glm45_355b", "glm-4.5-355b-a32b", "zai-org/GLM-4.5"],
    "GLM-4.5-Air": ["glm45_air_106b", "glm-4.5-air-106b-a12b"],
    "gpt-oss-120b": ["gpt_oss_120b", "GPT OSS 120B"],
    "gpt-oss-20b": ["gpt_oss_20b", "GPT OSS 20B"],
    "Mixtral-8x7B": ["mixtral_8x7b", "mixtral-8x7b-v0.1"],
    "Gemma-3-4B": ["gemma3_vl_4b", "gemma-3-4b-pt", "gemma-3-4b"],
    "Gemma-3-12B": ["gemma3_vl_12b", "gemma-3-12b-pt", "gemma-3-12b"],
    "Gemma-3-27B": ["gemma3_vl_27b", "gemma-3-27b-pt", "gemma-3-27b"],
    "Nemotron-H-8B": ["nemotronh_8b", "nemotron-h-8b-base-8k"],
    "Nemotron-H-56B": ["nemotronh_56b", "Nemotron5-H_56B", "nemotron-h-56b-base-8k"],
    "Nemotron-3-Nano-30B-A3B": ["nemotron_3_nano", "Nemotron_3_Nano", "nemotron-3-nano-30b-a3b", "NVIDIA-Nemotron-3-Nano-30B-A3B"],
}

ALIAS_NOTES = {
    "Qwen3.5-35B-A3B": ("qwen35_text_35b_a3b is Megatron-Bridge's text-only build of this model "
                        "(AutoBridge.from_hf_config(text_config)); qwen35_vl_35b_a3b_long_context is a recipe-variant stem"),
    "Qwen3.5-9B": "qwen35_text_9b is Megatron-Bridge's text-only build of this model (AutoBridge.from_hf_config(text_config))",
    "Nemotron-H-56B": "Nemotron5-H_56B is the performance-summary spelling of NemotronH 56B (recipe stem nemotronh_56b)",
}

# Models named by recipes or measured rows that are not among the 32: name -> (aliases, family, hf_id,
# architecture_like, note). No architecture (the catalog does not have their shapes yet).
STUB_MODELS = OrderedDict([
    ("DeepSeek-V2", (["deepseek_v2"], "deepseek_v2", "deepseek-ai/DeepSeek-V2", None, "")),
    ("DeepSeek-V2-Lite", (["deepseek_v2_lite"], "deepseek_v2", "deepseek-ai/DeepSeek-V2-Lite", None, "")),
    ("DeepSeek-V4-Flash", (["deepseek_v4_flash", "deepseek_v4_flash_no_mtp", "deepseek-v4-flash", "DeepSeekV4 Flash"], None, None, None,
                           "deepseek_v4_flash_no_mtp is a recipe stem for the same model with MTP disabled")),
    ("DeepSeek-V4-Pro", (["deepseek_v4_pro", "deepseek-v4-pro", "DeepSeekV4 Pro"], None, None, None, "")),
    ("EXAONE-4.0-1.2B", (["exaone4_1p2b"], "exaone4", None, None, "")),
    ("EXAONE-4.5-33B", (["exaone45_vl_33b"], None, None, None, "vision-language")),
    ("EXAONE-MoE-236B-A23B", (["exaone_moe_236b_a23b"], None, None, None, "")),
    ("EXAONE-MoE-2.0-750B-A37B", (["exaone_moe_2_0_750b_a37"], None, None, None, "recipe stem spells a37 (A37B)")),
    ("FLUX-12B", (["flux_12b"], None, None, None, "diffusion image model (FLUX.1, 12B)")),
    ("Gemma-2-2B", (["gemma2_2b"], "gemma2", "google/gemma-2-2b", None, "")),
    ("Gemma-2-9B", (["gemma2_9b"], "gemma2", "google/gemma-2-9b", None, "")),
    ("Gemma-2-27B", (["gemma2_27b"], "gemma2", "google/gemma-2-27b", None, "")),
    ("Gemma-3-1B", (["gemma3_1b"], "gemma3_text", "google/gemma-3-1b-pt", None,
                    "text-only 1B (the recipe's provider: 26 layers, hidden 1152, 4 heads)")),
    ("Gemma-4-E4B", (["gemma4_e4b"], None, None, None, "")),
    ("Gemma-4-26B-A4B", (["gemma4_vl_26b", "gemma-4-26b-a4b-it"], None, None, None,
                         "gemma-4-26b-a4b-it (verification card) is the instruction-tuned checkpoint of the same model; the card runs gemma4_vl_26b recipes")),
    ("GLM-4.5V", (["glm_45v"], None, None, None, "vision-language model on the GLM-4.5-Air language model")),
    ("GLM-5.1", (["glm51"], None, None, None, "")),
    ("GLM-5.2", (["glm52", "glm5-2"], None, None, None, "")),
    ("GPT-3-175B", (["gpt3_175b"], "gpt", None, None, "the recipe's provider: 96 layers, hidden 12288, seq 2048")),
    ("Kimi-K2.5", (["kimi_k25_vl"], None, "moonshotai/Kimi-K2.5", None,
                   "vision-language: the language model (the Kimi-K2 shape) is sized; its MoonViT vision tower (vt_* fields, about 0.4B parameters) is not modelled")),
    ("Llama-2-7B", (["llama2_7b"], "llama", "meta-llama/Llama-2-7b-hf", None, "")),
    ("Llama-3.1-8B", (["llama31_8b"], "llama", "meta-llama/Meta-Llama-3.1-8B", "Llama-3-8B",
                      "same layer shapes as Llama-3-8B but a different model (128K context, RoPE scaling): not aliased")),
    ("Llama-3.1-70B", (["llama31_70b"], "llama", "meta-llama/Meta-Llama-3.1-70B", "Llama-3-70B",
                       "same layer shapes as Llama-3-70B but a different model (128K context, RoPE scaling): not aliased")),
    ("Llama-3.2-1B", (["llama32_1b"], "llama", "meta-llama/Llama-3.2-1B", None, "")),
    ("Llama-3.2-3B", (["llama32_3b"], "llama", "meta-llama/Llama-3.2-3B", None, "")),
    ("MiniMax-M3", (["minimax_m3"], None, None, None, "")),
    ("Ministral-3-3B", (["ministral3_3b"], None, None, None, "")),
    ("Ministral-3-8B", (["ministral3_8b"], None, None, None, "")),
    ("Ministral-3-14B", (["ministral3_14b"], None, None, None, "")),
    ("Moonlight-16B-A3B", (["moonlight_16b", "moonlight-16b-a3b"], "deepseek_v3", None, None, "")),
    ("Nemotron-3.5-Lightning", (["nemotron_3_5_lightning", "Nemotron_3_5_Lightning", "nemotron-3.5-lightning"], "nemotron_h", None, None,
                                "the Nemotron 3 Nano 30B-A3B architecture with one native MTP block (*E), which its perf recipes run twice (mtp_num_layers 2)")),
    ("Nemotron-3-Nano-4B", (["nemotron_3_nano_4b", "nemotron-3-nano-4b"], "nemotron_h", None, None, "")),
    ("Nemotron-3-Nano-Omni-30B-A3B-Reasoning", (["nemotron_omni_cord_v2", "nemotron_omni_cord_v2_long_context", "nemotron_omni_valor32k",
                                                 "nemotron-3-nano-omni-30b-a3b-reasoning"], None, None, None,
                                                "the nemotron_omni_* stems name the dataset of one model's recipes (recipes/nemotron_omni, base _nemotron_omni_base); the verification card runs nemotron_omni_cord_v2 recipes")),
    ("Nemotron-3-Super-120B-A12B", (["nemotron_3_super", "Nemotron_3_Super", "nemotron-3-super-120b-a12b"], "nemotron_h", None, None,
                                    "hybrid Mamba-2 / attention / latent MoE: 88 layers, hidden 4096, 512 experts top-22 at moe_latent_size 1024, one shared MTP block (*E) that its recipes repeat twice (mtp_num_layers 2)")),
    ("Nemotron-3-Ultra", (["nemotron_3_ultra", "Nemotron_3_Ultra"], "nemotron_h", None, None, "")),
    ("Nemotron-H-4B", (["nemotronh_4b"], "nemotron_h", None, None, "")),
    ("Nemotron-H-47B", (["nemotronh_47b"], "nemotron_h", None, None, "")),
    ("Nemotron-Nano-9B-v2", (["nemotron_nano_9b_v2"], "nemotron_h", None, None, "")),
    ("Nemotron-Nano-12B-v2", (["nemotron_nano_12b_v2"], "nemotron_h", None, None, "")),
    ("Nemotron-Nano-12B-v2-VL", (["nemotron_nano_v2_vl_12b"], "nemotron_h", None, None,
                                 "vision-language: the language model (NVIDIA-Nemotron-Nano-12B-v2) is sized; its C-RADIOv2-H vision encoder "
                                 "is not modelled (the model card's 12.6B includes it)")),
    ("OLMoE-1B-7B", (["olmoe_7b"], "olmoe", None, None, "")),
    ("Qwen2-0.5B", (["qwen2_500m"], "qwen2", "Qwen/Qwen2-0.5B", None, "")),
    ("Qwen2-1.5B", (["qwen2_1p5b"], "qwen2", "Qwen/Qwen2-1.5B", None, "")),
    ("Qwen2-7B", (["qwen2_7b"], "qwen2", "Qwen/Qwen2-7B", None, "")),
    ("Qwen2-72B", (["qwen2_72b"], "qwen2", "Qwen/Qwen2-72B", None, "")),
    ("Qwen2-Audio-7B", (["qwen2_audio_7b"], "qwen2_audio", None, None,
                        "audio-language: the language model is sized; its Whisper-style audio encoder (audio_config: 32 layers, d_model 1280, ffn 5120, 20 heads, about 0.64B parameters) is not modelled, so memory and time are the language model's")),
    ("Qwen2.5-0.5B", (["qwen25_500m"], "qwen2", "Qwen/Qwen2.5-0.5B", None, "")),
    ("Qwen2.5-1.5B", (["qwen25_1p5b"], "qwen2", "Qwen/Qwen2.5-1.5B", None, "")),
    ("Qwen2.5-7B", (["qwen25_7b"], "qwen2", "Qwen/Qwen2.5-7B", None, "")),
    ("Qwen2.5-14B", (["qwen25_14b"], "qwen2", "Qwen/Qwen2.5-14B", None, "")),
    ("Qwen2.5-32B", (["qwen25_32b"], "qwen2", "Qwen/Qwen2.5-32B", None, "")),
    ("Qwen2.5-72B", (["qwen25_72b"], "qwen2", "Qwen/Qwen2.5-72B", None, "")),
    ("Qwen2.5-VL-3B", (["qwen25_vl_3b"], "qwen2_5_vl", None, None, "")),
    ("Qwen2.5-VL-7B", (["qwen25_vl_7b"], "qwen2_5_vl", None, None, "")),
    ("Qwen2.5-VL-32B", (["qwen25_vl_32b"], "qwen2_5_vl", None, None, "")),
    ("Qwen2.5-VL-72B", (["qwen25_vl_72b"], "qwen2_5_vl", None, None, "")),
    ("Qwen3-Omni-30B-A3B", (["qwen3_omni_30b_a3b"], "qwen3_omni_moe", None, None,
                            "omni: the thinker's language model (the Qwen3-30B-A3B shape, vocab 152064) and its vision tower are sized; "
                            "its audio encoder (32 layers, d_model 1280) and the talker / code2wav speech-output models are not modelled")),
    ("Qwen3-VL-8B", (["qwen3_vl_8b"], "qwen3_vl", None, None, "")),
    ("Qwen3-VL-30B-A3B", (["qwen3_vl_30b_a3b"], "qwen3_vl_moe", None, None, "")),
    ("Qwen3-VL-235B-A22B", (["qwen3_vl_235b_a22b"], "qwen3_vl_moe", None, None, "")),
    ("Qwen3.5-2B", (["qwen35_vl_2b"], "qwen3_5", None, None, "")),
    ("Qwen3.6-35B-A3B", (["qwen3.6-35b-a3b"], "qwen3_5_moe", None, "Qwen3.5-35B-A3B",
                         "a later release with the Qwen3.5-35B-A3B architecture (public config copy); its verification card runs qwen35_vl_35b_a3b recipes; not aliased (different weights)")),
    ("Qwen3.8-27B", (["qwen3.8-27b"], "qwen3_5", None, "Qwen3.5-27B",
                     "its verification card runs qwen35_vl_27b recipes; public test code checks the Qwen3.5-27B text/vision shape for it; not aliased (different model)")),
    ("Step-3.5-Flash", (["step35_196b_a11b"], None, "stepfun-ai/Step-3.5-Flash", None, "")),
    ("Step-3.7", (["step37"], None, None, None, "")),
    ("vanilla-GPT", (["vanilla_gpt"], "gpt", None, None, "Megatron-LM/Bridge parity baseline GPT")),
    ("Wan-1.3B", (["wan_1_3b", "wan_1_3b_text2image", "wan_1_3b_text2video"], None, None, None,
                  "diffusion video model; text2image/text2video stems are tasks of the same model")),
    ("Wan-14B", (["wan_14b"], None, None, None, "diffusion video model")),
])


# Published parameter counts of stub models (those sized from a config.json), with where each is published:
# name -> (total_params, active_params or 0, note). The C++ test model_source_test.cpp checks that the
# architecture read from the config.json gives the total within 2% (or the figure's rounding).
STUB_PUBLISHED = {
    "DeepSeek-V2": (236000000000, 21000000000,
                    "DeepSeek-V2 paper (arXiv:2405.04434) abstract: 236B total parameters, of which 21B are activated for each token"),
    "DeepSeek-V2-Lite": (15700000000, 2400000000,
                         "DeepSeek-V2-Lite model card (deepseek-ai/DeepSeek-V2-Lite; summarized at promptlayer.com/models/deepseek-v2-lite-fa0e): "
                         "15.7B total parameters, 2.4B active"),
    "Gemma-2-2B": (2600000000, 0,
                   "Gemma 2 report (arXiv:2408.00118) calls it the 2.6B model (2,024,517,888 non-embedding parameters, Table 1; "
                   "summarized at aili.app/share/4zAAqmDNDHyxQWyJrjAdk4)"),
    "Gemma-2-9B": (9000000000, 0,
                   "Gemma 2 report (arXiv:2408.00118): the 9B model (8,324,201,984 non-embedding parameters, Table 1)"),
    "GLM-4.5V": (106000000000, 12000000000,
                 "xorbitsai/inference doc/source/models/builtin/llm/glm-4.5v.rst: based on GLM-4.5-Air (106B parameters, 12B active); "
                 "the checkpoint's weight table sums to 107,710,933,120 with the vision tower (the config's source)"),
    "Qwen3-VL-30B-A3B": (30000000000, 0,
                         "xorbitsai/inference doc/source/models/builtin/llm/qwen3-vl-instruct.rst@c39c209c1cbf: Qwen/Qwen3-VL-30B-A3B-Instruct, "
                         "model size 30 billion"),
    "Qwen3-VL-235B-A22B": (235000000000, 0,
                           "xorbitsai/inference doc/source/models/builtin/llm/qwen3-vl-instruct.rst@c39c209c1cbf: Qwen/Qwen3-VL-235B-A22B-Instruct, "
                           "model size 235 billion"),
    "Qwen2.5-VL-32B": (32500000000, 0,
                       "its language model is the Qwen2.5-32B shape: the Qwen/Qwen2.5-32B model card, Number of Parameters 32.5B "
                       "(non-embedding 31.0B); the vision tower is counted apart"),
    "Qwen2.5-VL-72B": (72700000000, 0,
                       "its language model is the Qwen2-72B / Qwen2.5-72B shape: Qwen2 report arXiv:2407.10671 Table 1, 72.7B; "
                       "the vision tower is counted apart"),
    "Ministral-3-8B": (8920000000, 0,
                       "mistralai/Ministral-3-8B-Instruct-2512: 8.92B total with the vision encoder (a public model-admission report, "
                       "whose repository was not recorded); Megatron-Bridge docs models/mistral/ministral3.md: 8.9B, "
                       "vision encoder ~0.4B"),
    "Ministral-3-14B": (13950000000, 0,
                        "mistralai/Ministral-3-14B-Instruct-2512: 13.95B total with the vision encoder (a public copy whose repository was not recorded); "
                        "Megatron-Bridge docs models/mistral/ministral3.md: 13.9B, vision encoder ~0.4B"),
    "Kimi-K2.5": (1000000000000, 32860000000,
                  "NVIDIA technical blog 'Build with Kimi K2.5 Multimodal VLM Using NVIDIA GPU-Accelerated Endpoints' (2026-02-04): "
                  "total parameters 1T, active parameters 32.86B (with the embedding); the MoonViT tower is not counted here"),
    "Nemotron-3.5-Lightning": (31600000000, 0,
                               "the Nemotron 3 Nano architecture (Megatron-Bridge lightning README): 31.6 billion total parameters "
                               "(replicate.com/nvidia/nemotron-3-nano-30b-a3b readme); the name says 30B-A3B; the MTP block is counted apart"),
    "Qwen3.8-27B": (27000000000, 0,
                    "its name (27B); InternLM/xtuner builds it with the Qwen3.5-27B class Qwen3_5_VLDense27BConfig "
                    "(a public copy whose repository was not recorded); text 26.90B + vision tower 0.46B as counted here"),
    "Qwen3.6-35B-A3B": (35000000000, 3000000000,
                        "its name (35B-A3B); a public LoRA provenance note: ~35B total / ~3B active, "
                        "architecture qwen3_5_moe"),
    "Gemma-2-27B": (27000000000, 0,
                    "Gemma 2 report (arXiv:2408.00118): the 27B model (26,047,480,320 non-embedding parameters, Table 1)"),
}


# ==================================================================================================
# Helpers
# ==================================================================================================

from decimal import Decimal

OD = OrderedDict


def fold(s):
    """The catalog's name folding (src/recipebook/core/strings.cpp fold_name)."""
    return "".join(c.lower() for c in s if c not in "-_. /")


def slug(name):
    return name.lower().replace(" ", "-").replace("/", "-")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def int_or_none(v):
    v = (v or "").strip()
    if v in ("", "None", "n/a") or v.startswith("<"):
        return None
    return int(v)


def num(v):
    """A CSV number as int when integral in the text, else float."""
    v = v.strip()
    if v in ("", "n/a"):
        return None
    return int(v) if re.match(r"^-?[0-9]+$", v) else float(v)


def drop_none(d):
    return OD((k, v) for k, v in d.items() if v is not None)


def parse_count(text):
    """'30.5B (computed ...)' -> 30500000000; '1T' -> 10**12; None when it has no leading count."""
    m = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([BT])", text or "")
    if not m:
        return None
    scale = Decimal(10) ** (9 if m.group(2) == "B" else 12)
    return int(Decimal(m.group(1)) * scale)


def fmt_num(x):
    """1234.0 -> '1234', 537.625 -> '537.625'."""
    d = Decimal(str(x)).normalize()
    t = format(d, "f")
    return t


# ==================================================================================================
# Hardware
# ==================================================================================================

def hardware_docs(gpus_rows):
    docs = OD()
    for row in gpus_rows:
        name, display, aliases, per_node, precisions, node_note = GPU_TABLE[row["name"]]
        peak = OD()
        peak["bf16"] = "%s TFLOP/s" % row["bf16_dense_tflops"]
        peak["fp8"] = ("%s TFLOP/s" % row["fp8_dense_tflops"]) if row["fp8_dense_tflops"].strip() else None
        peak["fp4"] = ("%s TFLOP/s" % row["fp4_dense_tflops"]) if row["fp4_dense_tflops"].strip() else None
        nvl_gbit = Decimal(row["nvlink_bw_gbps_per_gpu_unidirectional"])
        so_gbit = Decimal(row["typical_scaleout_gbps_per_gpu"])
        node = OD()
        node["gpus"] = per_node
        node["nvlink_domain"] = int(row["nvlink_domain_size"])
        node["nvlink_bandwidth"] = with_comment("%s GB/s" % fmt_num(nvl_gbit / 8),
                                                "%s Gbit/s per GPU, one direction (gpus.csv)" % row["nvlink_bw_gbps_per_gpu_unidirectional"])
        so_note = "%s Gbit/s per GPU (gpus.csv)" % row["typical_scaleout_gbps_per_gpu"]
        if name in SCALEOUT_TABLE:
            so_gbit, so_note = Decimal(SCALEOUT_TABLE[name][0]), SCALEOUT_TABLE[name][1]
        node["scaleout_bandwidth"] = with_comment("%s GB/s" % fmt_num(so_gbit / 8), so_note)
        node["note"] = node_note
        price_text = row["typical_cloud_usd_per_gpu_hour(with instance name and date)"]
        pm = re.match(r"^([0-9]+(?:\.[0-9]+)?) \(", price_text)
        dm = re.search(r"(20[0-9]{2}-[0-9]{2}-[0-9]{2})", price_text)
        price = OD()
        price["usd_per_gpu_hour"] = float(pm.group(1)) if pm else None
        price["date"] = dm.group(1) if dm else None
        price["source"] = price_text
        eff = OD()
        for p in ["bf16"] + precisions:
            eff[p] = OD(DEFAULT_EFFICIENCY)
        d = OD()
        d["name"] = name
        d["display"] = display
        d["aliases"] = aliases
        d["source"] = "gpus.csv row %r: %s" % (row["name"], row["source"])
        if name in SCALEOUT_TABLE:
            d["source"] += "; " + SCALEOUT_TABLE[name][2]
        d["memory"] = with_comment("%s GiB" % row["memory_gb"],
                                   "memory_gb as marketed (gpus.csv); HBM is sized in GiB: nvidia-smi shows "
                                   "81,559 MiB on an 80 GB H100")
        d["hbm_bandwidth"] = "%s TB/s" % row["hbm_bw_tbps"]
        d["peak"] = peak
        d["node"] = node
        d["tdp_w"] = int(row["tdp_w"]) if row["tdp_w"].strip() else None
        if name in HOST_TABLE:
            link, link_bw, mem, mem_bw, src = HOST_TABLE[name]
            host = OD()
            host["cpu"], host["cpu_family"] = HOST_CPU[name]
            host["link"] = link
            host["link_bandwidth"] = with_comment(link_bw, "per GPU, one direction")
            host["memory"] = with_comment(mem, "per node")
            host["memory_bandwidth"] = with_comment(mem_bw, "per node, peak")
            host["date"] = HOST_DATE
            host["source"] = src
            d["host"] = host
        d["price"] = price
        d["efficiency"] = eff  # neutral starting values; fitted later by `recipebook calibrate --fit`
        docs[name] = d
    for name, (display, aliases, source) in GPU_STUBS.items():
        docs[name] = OD([("name", name), ("display", display), ("aliases", aliases), ("source", source)])
    return docs


# ==================================================================================================
# Models
# ==================================================================================================

MODEL_CONFIGS_TSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_configs.tsv")
MODEL_KINDS = ("diffusion", "template")
NO_FILE_USES = MODEL_KINDS + ("unknown",)
CONFIG_USES = ("config", "pending", "unknown") + MODEL_KINDS


def tsv_rows(path, columns):
    """The rows of a tab-separated table under scripts/ (blank lines and # comments skipped), each as
    (line number, its stripped cells); a row with another number of cells stops the script naming
    the line. A missing file has no rows."""
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != len(columns):
                raise SystemExit("%s:%d: expected %d tab-separated columns (%s)" % (path, n, len(columns), ", ".join(columns)))
            yield n, tuple(c.strip() for c in cols)


def read_model_configs(path=MODEL_CONFIGS_TSV):
    """scripts/model_configs.tsv: where each stub model's architecture comes from.

    Columns: model (catalog name), use, hf_config (a file under catalog/models/, or -), source.
      use = config     the entry says `hf_config: <file>`; the C++ loader reads the architecture from it
      use = pending    the file is kept, but today's config.json reader refuses it: the entry stays a stub
                       whose source says so (switch to `config` once the reader takes it)
      use = diffusion  `kind: diffusion`, a model the estimator does not model (no file)
      use = template   `kind: template`, a recipe model with no fixed shape (its sizes are set per run; no file)
      use = unknown    `unsized: <source>`: a language model whose architecture has no public source found (no
                       file); the source column says what was searched, when, and what is known
    The config.json files are data read only by the C++ reader (src/recipebook/catalog/hf_config.cpp);
    this script never parses them, it only checks that they exist."""
    out = OD()
    for n, (name, use, cfg, source) in tsv_rows(path, ("model", "use", "hf_config", "source")):
        if use not in CONFIG_USES:
            raise SystemExit("%s:%d: use %r is not one of %s" % (path, n, use, ", ".join(CONFIG_USES)))
        if (cfg == "-") != (use in NO_FILE_USES):
            raise SystemExit("%s:%d: %s needs %s" % (path, n, use, "no file (-)" if use in NO_FILE_USES else "a file"))
        if name in out:
            raise SystemExit("%s:%d: %s is listed twice" % (path, n, name))
        if not source:
            raise SystemExit("%s:%d: %s has no source" % (path, n, name))
        out[name] = (use, None if cfg == "-" else cfg, source)
    return out


MODEL_NUMERICS_TSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_numerics.tsv")
NUMERICS_TOP = ("rope_theta", "rotary_percent", "norm_eps")
NUMERICS_SUB = {
    "rope_scaling": ("type", "factor", "low_freq_factor", "high_freq_factor", "original_max_position", "beta_fast",
                     "beta_slow", "mscale", "mscale_all_dim", "truncate"),
    "router": ("score", "expert_bias", "topk_scaling", "groups", "group_topk", "norm_topk"),
}


def _numerics_value(text):
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def read_model_numerics(path=MODEL_NUMERICS_TSV):
    """scripts/model_numerics.tsv: architecture.numerics of the models.csv models (rotary base and
    scaling, norm epsilon, router scoring), each row with the config.json it was read from.
    Columns: model, values ("key=value; ..."), source. A key left out is not known."""
    out = OD()
    for n, (name, values, source) in tsv_rows(path, ("model", "values", "source")):
        if name in out:
            raise SystemExit("%s:%d: %s is listed twice" % (path, n, name))
        if not source:
            raise SystemExit("%s:%d: %s has no source" % (path, n, name))
        num = OD()
        for pair in (p.strip() for p in values.split(";")):
            if not pair:
                continue
            key, _, val = pair.partition("=")
            key, val = key.strip(), val.strip()
            if key == "rope_scaling" and val == "none":
                num["rope_scaling"] = "none"
            elif "." in key:
                group, sub = key.split(".", 1)
                if sub not in NUMERICS_SUB.get(group, ()):
                    raise SystemExit("%s:%d: unknown key %r" % (path, n, key))
                num.setdefault(group, OD())[sub] = _numerics_value(val)
            elif key in NUMERICS_TOP:
                num[key] = _numerics_value(val)
            else:
                raise SystemExit("%s:%d: unknown key %r" % (path, n, key))
        for k in NUMERICS_TOP:
            if isinstance(num.get(k), int):
                num[k] = float(num[k]) if k != "rope_theta" else num[k]
        num["source"] = source
        out[name] = num
    return out


def model_docs(models_rows):
    docs = OD()
    numerics = read_model_numerics()
    unknown = sorted(set(numerics) - set(r["name"] for r in models_rows))
    if unknown:
        raise SystemExit("scripts/model_numerics.tsv names models that are not models.csv rows: %s" % ", ".join(unknown))
    for row in models_rows:
        name = row["name"]
        x = ARCH_EXTRA.get(name, {})
        experts = int(row["experts"] or 0)
        is_mla = bool(x.get("mla"))
        arch = OD()
        arch["hidden"] = int(row["hidden"])
        arch["vocab"] = int(re.sub(r"[^0-9]", "", row["vocab"]))
        arch["ffn"] = int(row["ffn"])
        arch["tied_embeddings"] = row["tied_embeddings"].strip().lower() == "true"
        arch["norm"] = "rms"
        arch["activation"] = x.get("activation", "swiglu")
        arch["mlp_bias"] = False
        arch["learned_position_embedding"] = False
        if row["max_position"].strip():
            arch["max_position"] = int(row["max_position"])
        elif x.get("max_position"):
            arch["max_position"] = x["max_position"]
        if is_mla:
            qk = int(row["mla_qk_nope_dim"]) + int(row["mla_qk_rope_dim"])
            arch["attention"] = _attn(int(row["heads"]), int(row["kv_heads"]), qk, int(row["mla_v_dim"]))
            arch["mla"] = OD([("q_lora_rank", int(row["mla_q_lora_rank"])), ("kv_lora_rank", int(row["mla_kv_lora_rank"])),
                              ("qk_nope_dim", int(row["mla_qk_nope_dim"])), ("qk_rope_dim", int(row["mla_qk_rope_dim"])),
                              ("v_dim", int(row["mla_v_dim"]))])
        else:
            arch["attention"] = _attn(int(row["heads"]), int(row["kv_heads"]), int(row["head_dim"]),
                                      output_gate=x.get("output_gate"), qkv_bias=x.get("qkv_bias"),
                                      out_bias=x.get("out_bias"), qk_norm=x.get("qk_norm"), sinks=x.get("sinks"))
        if "gdn" in x:
            kh, vh, kd, vd, ck = x["gdn"]
            arch["gdn"] = OD([("key_heads", kh), ("value_heads", vh), ("key_dim", kd), ("value_dim", vd), ("conv_kernel", ck)])
        if "mamba" in x:
            h, hd, st, g, ck = x["mamba"]
            arch["mamba"] = OD([("heads", h), ("head_dim", hd), ("state", st), ("groups", g), ("conv_kernel", ck)])
        if experts:
            arch["moe"] = _moe(experts, int(row["top_k"]), int(row["moe_ffn"]), int(row["shared_experts"] or 0),
                               int(row["shared_expert_ffn"] or 0), bool(x.get("shared_gate")),
                               bool(x.get("expert_bias")), bool(x.get("router_bias")))
        layers = OD()
        layers["count"] = int(row["layers"])
        if "hybrid" in x:
            layers["hybrid_pattern"] = x["hybrid"]
        else:
            layers["mixer_pattern"] = x.get("pattern", ["mla"] if is_mla else ["attention"])
            layers["window_pattern"] = x.get("window", [0])
            if experts:
                layers["first_dense"] = int(row["first_dense_layers"] or 0)
        arch["layers"] = layers
        if name in numerics:
            arch["numerics"] = numerics[name]
        if x.get("mtp"):
            arch["mtp_layers"] = x["mtp"]
        if "vision" in x:
            arch["vision"] = x["vision"]
        published = OD()
        published["total_params"] = parse_count(row["total_params_published"])
        published["active_params"] = parse_count(row["active_params_published"])
        published["note"] = "models.csv: total %r; active %r" % (row["total_params_published"], row["active_params_published"])
        src = row["source"]
        if x.get("src"):
            src += "; " + x["src"]
        if x.get("unverified"):
            src += "; UNVERIFIED: " + x["unverified"]
        notes = []
        if row["linear_attn_layers_pattern"].strip():
            notes.append("layer pattern: " + row["linear_attn_layers_pattern"].strip())
        if row["linear_attn_params(notes)"].strip():
            notes.append("notes: " + row["linear_attn_params(notes)"].strip())
        notes.append("arch_family: " + row["arch_family"].strip())
        if x.get("note_ffn"):
            notes.append(x["note_ffn"])
        if name in ALIAS_NOTES:
            notes.append("aliases: " + ALIAS_NOTES[name])
        d = OD()
        d["name"] = name
        d["hf_id"] = row["hf_id"]
        d["family"] = row["arch_family"].split(" ")[0]
        d["aliases"] = MODEL_ALIASES.get(name, [])
        d["source"] = src
        d["notes"] = "; ".join(notes)
        d["architecture"] = arch
        d["published"] = drop_none(published)
        docs[name] = d
    configs = read_model_configs()
    unknown = sorted(set(configs) - set(STUB_MODELS))
    if unknown:
        raise SystemExit("scripts/model_configs.tsv names models that are not stubs: %s" % ", ".join(unknown))
    for name, (aliases, family, hf_id, like, note) in STUB_MODELS.items():
        d = OD()
        d["name"] = name
        if hf_id:
            d["hf_id"] = hf_id
        if family:
            d["family"] = family
        d["aliases"] = aliases
        d["source"] = None  # filled from the recipes and measured rows that name it
        use, cfg, cfg_source = configs.get(name, (None, None, None))
        if use == "config":
            d["hf_config"] = cfg
            if name in STUB_PUBLISHED:
                total, active, pub_note = STUB_PUBLISHED[name]
                d["published"] = drop_none(OD([("total_params", total), ("active_params", active or None),
                                               ("note", pub_note)]))
        elif use in MODEL_KINDS:
            d["kind"] = use
        elif use == "unknown":
            d["unsized"] = cfg_source
        d["_config"] = (use, cfg, cfg_source)
        if like and use != "config":  # architecture_like is for stubs
            d["architecture_like"] = like
        if note:
            d["notes"] = note
        docs[name] = d
    return docs


def stub_source(d, refs):
    """The `source` of a model without an architecture section, from model_configs.tsv and its users."""
    use, cfg, cfg_source = d.pop("_config", (None, None, None))
    named = "Named by %s." % ("; ".join(refs) if refs else "no recipe")
    if use == "config":
        return "Architecture read from its config.json, catalog/models/%s (%s). %s" % (cfg, cfg_source, named)
    if use == "diffusion":
        return "A diffusion model (%s): the estimator models decoder-only language models, so it has no architecture here. %s" % (cfg_source, named)
    if use == "template":
        return "No fixed architecture (%s): each run sets its sizes, so give a config.json to size one. %s" % (cfg_source, named)
    if use == "unknown":
        return "%s Its architecture is not in the catalog: %s." % (named, cfg_source)
    if use == "pending":
        return ("%s Its config.json is kept at catalog/models/%s (%s), but today's config.json reader refuses it, "
                "so its architecture is not in the catalog yet (a stub)." % (named, cfg, cfg_source))
    return "%s Its architecture is not in the catalog yet (a stub: name and aliases only)." % named


class Resolver:
    """Catalog-name lookup by name, alias or HF id, folded as the C++ catalog folds them."""

    def __init__(self, docs):
        self.by_fold = {}
        self.collisions = []
        for name, d in docs.items():
            keys = [name] + list(d.get("aliases", [])) + ([d["hf_id"]] if d.get("hf_id") else [])
            for k in keys:
                f = fold(k)
                other = self.by_fold.get(f)
                if other is not None and other != name:
                    self.collisions.append((k, other, name))
                self.by_fold[f] = name

    def __call__(self, ref):
        return self.by_fold.get(fold(ref))


# ==================================================================================================
# Recipes
# ==================================================================================================

PRECISION = {"bf16": "bf16", "fp8cs": "fp8_cs", "fp8ds": "fp8_ds", "fp8sc": "fp8_blockwise", "fp8mx": "mxfp8", "nvfp4": "nvfp4"}


def parse_other(text):
    out = OD()
    for part in text.split("; "):
        part = part.strip()
        if not part:
            continue
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


# Megatron-Bridge's mock VLM data (data/builders/mock_vlm_sft.py MockVLMSFTDatasetConfig: image_size
# (256, 256), num_images 1), which every qwen_vl *_mock_config recipe uses without overriding either
# (recipes/qwen_vl/h100/qwen3_vl.py, qwen35_vl.py at Megatron-Bridge 067f987): the image budget of a
# recipe built on one, when the `other` column gives none.
MOCK_VLM_PIXELS = 256 * 256
# max_vision_cuda_graph_seq_length that execution helpers set (recipes/qwen_vl/h100/qwen35_vl.py:
# _apply_qwen35_vl_35b_a3b_16gpu_h100_execution_config sets 784 with vision_cuda_graph_impl
# transformer_engine).
VISION_GRAPH_CAPS = {"_apply_qwen35_vl_35b_a3b_16gpu_h100_execution_config": 784}


def vision_block(entry, other):
    """A VLM recipe's image budget -> the record's `vision:` block (docs/catalog-format.md), which the
    estimator runs the tower on: max_pixels (dataset.task_encoder.max_pixels), images_per_sample and
    max_vision_cuda_graph_seq_length (the vision CUDA graph cap) from the `other` column; else the
    mock VLM data's image for a recipe built on a qwen_vl *_mock_config, and the cap its execution
    helper sets."""
    keys = [("max_pixels", "max_pixels"), ("images_per_sample", "images_per_sample"),
            ("max_vision_cuda_graph_seq_length", "cuda_graph_max_patches")]
    d = drop_none(OD((field, int_or_none(other.get(key))) for key, field in keys))
    lineage = [entry, other.get("base") or ""] + (other.get("derived_from") or "").split("|")
    if "max_pixels" not in d and any("_vl_" in n and n.endswith("_mock_config") for n in lineage):
        d["max_pixels"] = MOCK_VLM_PIXELS
    if "max_pixels" in d and "cuda_graph_max_patches" not in d:
        for helper in (other.get("helpers") or "").split("|"):
            if helper in VISION_GRAPH_CAPS:
                d["cuda_graph_max_patches"] = VISION_GRAPH_CAPS[helper]
    return d


def parse_kv_list(text):
    """'impl=none;scope=[a,b];modules=[]' -> {'impl': 'none', 'scope': ['a','b'], 'modules': []}."""
    out = OD()
    for part in [p for p in text.split(";") if p.strip()]:
        k, _, v = part.partition("=")
        v = v.strip()
        if v.startswith("[") and v.endswith("]"):
            v = [s.strip() for s in v[1:-1].split(",") if s.strip()]
        out[k.strip()] = v
    return out


def parse_seq(v):
    if v is None:
        return None
    m = re.match(r"^<\s*([0-9]+)\s*\*\s*([0-9]+)\s*>$", v)
    if m:
        return int(m.group(1)) * int(m.group(2))
    return int_or_none(v)


def truthy(v):
    return v == "True"


# Settings a model's Bridge recipes set in code, which the static read of the source does not see.
# Llama-3.1-405B: Megatron-Bridge recipes/llama/llama3.py sets account_for_embedding_in_pipeline_split
# and account_for_loss_in_pipeline_split for 405B ("Pipeline split settings - required for 405B"):
# its 126 layers + 2 split evenly over PP 8/16 with VP 1-8.
CODE_SET_SETTINGS = {
    "Llama-3.1-405B": [("account_for_embedding_in_pipeline_split", True),
                       ("account_for_loss_in_pipeline_split", True)],
    # Megatron-Bridge recipes/qwen/h100/qwen3_moe.py: the Qwen3-235B-A22B pretrain, SFT and PEFT configs
    # set both (94 + 2 layers split over PP 4, 8 or 16); the perf recipes start from the pretrain one
    # (perf_recipes/qwen/*/qwen3_moe.py, base=qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config).
    "Qwen3-235B-A22B": [("account_for_embedding_in_pipeline_split", True),
                        ("account_for_loss_in_pipeline_split", True)],
}

# BF16 first/last layers that a performance recipe's mixed-precision config sets in code (the static read
# has the precision name only), by the data's (model, precision): Megatron-Core first_last_layers_bf16
# with num_layers_at_start/end_in_bf16 (the layout's bf16_layers_at_start/_end, docs/catalog-format.md).
# Megatron-Bridge perf_recipes/nemotronh/{b200,b300,gb200,gb300}/nemotronh.py set
# `cfg.mixed_precision = _nemotron_3_super_nvfp4_precision()` (perf_recipes/nemotronh/common.py), which is
# training/mixed_precision.py nemotron_3_super_bf16_with_nvfp4_mixed: bf16_with_nvfp4_mixed with
# first_last_layers_bf16 = True, num_layers_at_end_in_bf16 = 14 (start stays MixedPrecisionConfig's 0), and
# _nemotron_3_super_nvfp4_precision then sets fp4_param_gather = False ("Disabled until MCore PR 4358 lands",
# at 067f987df; bf16_with_nvfp4_mixed turns it on); the
# vr200 recipe starts from the gb300 one. The same 14 since the first Super NVFP4 performance config
# (v0.4.0, scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py set_nemotron_3_super_common_configs,
# then nemotron_3_super_bf16_with_nvfp4_mixed from v0.4.2) through v0.6.0 and 067f987df. The other NVFP4
# and FP8 performance recipes keep every decoder layer quantized: perf_recipes/_common.py _perf_precision
# (bf16_with_nvfp4_mixed, bf16_with_mxfp8_mixed; current and delayed scaling with first_last_layers_bf16 =
# False), as scripts/performance/utils/precision.py did since v0.2.0.
PERF_PRECISION_SETTINGS = {
    ("nemotron_3_super", "nvfp4"): [("first_last_layers_bf16", True), ("num_layers_at_start_in_bf16", 0),
                                    ("num_layers_at_end_in_bf16", 14), ("fp4_param_gather", False)],
}

# Per-module precision a performance recipe sets in code (Megatron-Core quant_recipe), by the data's
# (model, precision): the layout's bf16_modules / mxfp8_modules (docs/catalog-format.md), as
# Megatron-Core module names. Megatron-Bridge perf_recipes/nemotronh/{b200,b300,gb200,gb300}/nemotronh.py
# set `cfg.model.quant_recipe = load_quantization_recipe(_TE_QUANT_CFG_PATH)` on the Super NVFP4
# recipes (vr200 starts from gb300), perf_recipes/nemotronh/te_quant.cfg: matchers "*.linear_qkv",
# "*.linear_proj", "*mlp.fc[12]_latent_proj" and "mtp.*" to a TEQuantizationParams config with an empty
# training_recipe (BF16), "*mixer.out_proj" to fp8_quantization_recipe mxfp8; every other module stays
# in the NVFP4 autocast (routed and shared experts, Mamba in_proj). The same file from v0.4.0
# (scripts/performance/configs/nemotronh/te_quant.cfg, set by set_nemotron_3_super_common_configs for
# nvfp4 only) to 067f987df. The Super MXFP8 and the Nano recipes set no quant_recipe (_perf_precision).
PERF_MODULE_PRECISION = {
    ("nemotron_3_super", "nvfp4"): [("bf16_modules", ["linear_qkv", "linear_proj", "latent_proj", "mtp"]),
                                    ("mxfp8_modules", ["out_proj"])],
}

# Library recipes whose mixed-precision config keeps BF16 first/last layers, by entry (the static
# read has the precision from the name only; Megatron-Bridge training/mixed_precision.py at 067f987df):
# - bf16_with_fp8_current_scaling_mixed: first_last_layers_bf16 with 1 and 1. recipes/llama/h100/llama3.py
#   _llama3_8b_pretrain_2gpu_h100_low_precision("bf16_with_fp8_current_scaling_mixed"); recipes/gpt_oss/
#   h100/gpt_oss.py _enable_gpt_oss_hopper_fp8_current_scaling sets the same recipe by name.
# - the same helper's NVFP4 recipe sets start 0, end 4 ("we use BF16 for the last 4 layers").
# - recipes/nemotronh/h100/nemotronh.py nemotronh_47b/56b_pretrain_8gpu_h100_bf16_config set
#   "nemotron_h_bf16_with_fp8_current_scaling_mixed" (tensorwise FP8, 2 and 2) despite their names, and
#   recipes/nemotronh/h100/nemotron_nano_v2.py nemotron_nano_12b_v2_pretrain_4gpu_h100_bf16_config
#   "nanov2_bf16_with_fp8_current_scaling_mixed" (fp8_recipe blockwise, 2 and 2): the record's
#   precision is the one they run (the first field; None keeps the name's).
_CS_1_1 = [("first_last_layers_bf16", True), ("num_layers_at_start_in_bf16", 1), ("num_layers_at_end_in_bf16", 1)]
_CS_2_2 = [("first_last_layers_bf16", True), ("num_layers_at_start_in_bf16", 2), ("num_layers_at_end_in_bf16", 2)]
LIBRARY_PRECISION_SETTINGS = {
    "llama3_8b_pretrain_2gpu_h100_fp8cs_config": (None, _CS_1_1),
    "llama3_8b_pretrain_2gpu_h100_nvfp4_config": (None, [("first_last_layers_bf16", True),
                                                         ("num_layers_at_start_in_bf16", 0),
                                                         ("num_layers_at_end_in_bf16", 4)]),
    "gpt_oss_20b_pretrain_16gpu_h100_fp8cs_config": (None, _CS_1_1),
    "gpt_oss_20b_sft_8gpu_h100_fp8cs_config": (None, _CS_1_1),
    "gpt_oss_20b_peft_1gpu_h100_fp8cs_config": (None, _CS_1_1),
    "nemotronh_47b_pretrain_8gpu_h100_bf16_config": ("fp8_cs", _CS_2_2),
    "nemotronh_56b_pretrain_8gpu_h100_bf16_config": ("fp8_cs", _CS_2_2),
    "nemotron_nano_12b_v2_pretrain_4gpu_h100_bf16_config": ("fp8_blockwise", _CS_2_2),
}

# Transformer Engine kernel choices a performance recipe makes in code (the static read has only the
# helpers' names): `fused_grouped_mlp` is Megatron-Core use_transformer_engine_op_fuser (with TE's
# NVTE_CUTEDSL_FUSED_GROUPED_MLP=1 in the recipe's env_vars), `fp8_attention` fp8_dot_product_attention
# (docs/catalog-format.md). At Megatron-Bridge 067f987df (main), set after perf_recipes/_common.py
# _benchmark_common, which clears a base recipe's op fuser first:
# - perf_recipes/qwen/common.py _enable_hybridep_full_iteration_mxfp8: op fuser True, fp8_dot_product_attention True;
# - perf_recipes/gpt_oss/common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs: both True;
#   _apply_gpt_oss_20b_local_graph_configs: op fuser True;
# - perf_recipes/deepseek/common.py _enable_deepseek_full_iteration_mxfp8: op fuser True, fp8 attention
#   its argument (False by default; True in the b300 and gb300 DeepSeek-V3 MXFP8 recipes, below);
# - perf_recipes/nemotronh/common.py _apply_nemotron_3_ultra_perf_defaults: op fuser True.
HELPER_KERNEL_FEATURES = {
    "_enable_hybridep_full_iteration_mxfp8": OD([("fused_grouped_mlp", True), ("fp8_attention", True)]),
    "_apply_gpt_oss_120b_full_iter_fp8mx_configs": OD([("fused_grouped_mlp", True), ("fp8_attention", True)]),
    "_apply_gpt_oss_20b_local_graph_configs": OD([("fused_grouped_mlp", True)]),
    "_enable_deepseek_full_iteration_mxfp8": OD([("fused_grouped_mlp", True)]),
    "_apply_nemotron_3_ultra_perf_defaults": OD([("fused_grouped_mlp", True)]),
}
# The recipes that set them in their own body (each large_scale variant calls its base recipe), same commit:
# perf_recipes/deepseek/{b300,gb300}/deepseek_v3.py call _enable_deepseek_full_iteration_mxfp8(cfg,
# fp8_dot_product_attention=True, ...); gb300's _hsdp recipe sets the op fuser and fp8 attention False;
# perf_recipes/deepseek/{gb200,gb300}/deepseek_v4.py (flash gb200, pro gb300) and the qwen *_paged_stash_dev
# recipes set the op fuser; perf_recipes/nemotronh/{gb200,gb300,vr200}/nemotronh.py Super, Nano and 3.5
# Lightning MXFP8 set both; perf_recipes/llama/gb200/llama3.py llama3_8b_pretrain_8gpu_gb200_nvfp4_config
# sets fp8_dot_product_attention (with NVTE_DPA_FP8_RECIPE=Float8CurrentScaling); the library recipe
# recipes/qwen/gb200/qwen3_moe.py qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_functional_config sets both.
_BOTH = OD([("fused_grouped_mlp", True), ("fp8_attention", True)])
_FUSER = OD([("fused_grouped_mlp", True)])
RECIPE_KERNEL_FEATURES = {
    "deepseek_v3_pretrain_256gpu_b300_fp8mx_config": OD([("fp8_attention", True)]),
    "deepseek_v3_pretrain_256gpu_b300_fp8mx_large_scale_config": OD([("fp8_attention", True)]),
    "deepseek_v3_pretrain_256gpu_gb300_fp8mx_config": OD([("fp8_attention", True)]),
    "deepseek_v3_pretrain_256gpu_gb300_fp8mx_large_scale_config": OD([("fp8_attention", True)]),
    "deepseek_v3_pretrain_128gpu_gb300_fp8mx_hsdp_config": _FUSER,
    "deepseek_v4_flash_pretrain_128gpu_gb200_fp8mx_config": _FUSER,
    "deepseek_v4_pro_pretrain_256gpu_gb300_fp8mx_config": _FUSER,
    "qwen3_30b_a3b_pretrain_16gpu_gb200_fp8mx_paged_stash_dev_config": _FUSER,
    "qwen3_235b_a22b_pretrain_128gpu_gb200_fp8mx_paged_stash_dev_config": _FUSER,
    "qwen3_235b_a22b_pretrain_128gpu_gb300_fp8mx_paged_stash_dev_config": _FUSER,
    "llama3_8b_pretrain_8gpu_gb200_nvfp4_config": OD([("fp8_attention", True)]),
    "qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_functional_config": _BOTH,
}
for _gpu in ("gb200", "gb300", "vr200"):
    RECIPE_KERNEL_FEATURES["nemotron_3_super_pretrain_64gpu_%s_fp8mx_config" % _gpu] = _BOTH
    RECIPE_KERNEL_FEATURES["nemotron_3_nano_pretrain_8gpu_%s_fp8mx_config" % _gpu] = _BOTH
for _gpu in ("gb200", "gb300"):
    RECIPE_KERNEL_FEATURES["nemotron_3_5_lightning_pretrain_8gpu_%s_fp8mx_config" % _gpu] = _BOTH


# Distributed-optimizer settings a performance recipe sets in its own body (the static read has only its
# helpers' names), Megatron-Bridge 067f987df: perf_recipes/deepseek/gb300/deepseek_v3.py
# deepseek_v3_pretrain_128gpu_gb300_fp8mx_hsdp_config sets ddp.num_distributed_optimizer_instances = 4
# with outer_dp_sharding_strategy "optim" (Megatron-FSDP HSDP: 32-GPU shard groups, 4 replicas). Its
# 64-GPU _fsdp siblings set 1 (the default). Nemotron 3 Ultra's _apply_nemotron_3_ultra_fsdp_hsdp sets
# num_gpus // 64, but its records do not record their EP (a placeholder in the data), so it is not set here.
RECIPE_DDP_SETTINGS = {
    "deepseek_v3_pretrain_128gpu_gb300_fp8mx_hsdp_config": OD([("num_distributed_optimizer_instances", 4)]),
}

# Megatron-Core cp_comm_type a recipe sets in code (Layout::cp_comm; the static read does not keep it):
# `cfg.model.cp_comm_type = ...` in Megatron-Bridge@067f987df recipes/gemma3_vl/h100/gemma3_vl.py,
# recipes/gpt_oss/h100/gpt_oss.py, recipes/qwen/h100/qwen3.py, recipes/nemotronh/h100/nemotron_3_nano_4b.py,
# recipes/nemotronh/h100/nemotron_3_super.py and recipes/gemma4_vl/h100/gemma4_vl.py
# (_apply_gemma4_vl_common, which both of its recipes call); nemotron_3_nano.py's "p2p" is the default.
# GLM-5.x: models/glm_moe_dsa/glm5_bridge.py sets provider.cp_comm_type = "allgather" for every
# GLM-5 model, and the perf recipes (perf_recipes/glm_moe_dsa/*/glm5.py) set it again (MODEL_CP_COMM).
RECIPE_CP_COMM = {e: "a2a" for e in (
        "gemma3_vl_4b_sft_1gpu_h100_bf16_config", "gemma3_vl_12b_sft_4gpu_h100_bf16_config",
        "gemma3_vl_27b_sft_16gpu_h100_bf16_config", "gemma3_vl_4b_peft_1gpu_h100_bf16_config",
        "gemma3_vl_12b_peft_1gpu_h100_bf16_config", "gemma3_vl_27b_peft_4gpu_h100_bf16_config",
        "gemma4_vl_26b_sft_8gpu_h100_bf16_config", "gemma4_vl_26b_peft_4gpu_h100_bf16_config",
        "gpt_oss_20b_pretrain_16gpu_h100_bf16_config", "gpt_oss_120b_pretrain_64gpu_h100_bf16_config",
        "gpt_oss_120b_sft_48gpu_h100_bf16_32k_config", "nemotron_3_nano_4b_sft_8gpu_h100_bf16_32k_config",
        "nemotron_3_super_sft_16gpu_h100_bf16_32k_config", "qwen3_600m_sft_8gpu_h100_bf16_128k_config",
        "qwen3_8b_sft_8gpu_h100_bf16_32k_config")}
MODEL_CP_COMM = {"GLM-5.1": "allgather", "GLM-5.2": "allgather"}


def kernel_features(entry, helpers):
    """The TE kernel choices a recipe makes in code: its helpers', then its own."""
    out = OD()
    for h in helpers:
        out.update(HELPER_KERNEL_FEATURES.get(h, {}))
    out.update(RECIPE_KERNEL_FEATURES.get(entry, {}))
    return out


# Layout helpers whose (PP, VP) table the recipes call with literal arguments, as Megatron-Core layout
# strings (Megatron-Bridge recipes/kimi/h100/kimi_k2.py _get_kimi_k2_pipeline_layout: 61 layers, no MTP).
_KIMI_K2_16 = "Et*4|(t*4|)*14tL"
_KIMI_K2_8 = "Et*8|(t*8|)*6t*5L"
LAYOUT_HELPERS = {
    "_get_kimi_k2_pipeline_layout": {
        (4, 1): "Et*16|t*16|t*16|t*13L", (8, 1): _KIMI_K2_8, (4, 2): _KIMI_K2_8,
        (16, 1): _KIMI_K2_16, (8, 2): _KIMI_K2_16, (4, 4): _KIMI_K2_16, (2, 8): _KIMI_K2_16,
    },
    # recipes/kimi_vl/h100/kimi_k25_vl.py _get_kimi_k25_vl_pipeline_layout: the same map over the same 61
    # layers (Kimi-K2.5's language model is the Kimi-K2 shape).
    "_get_kimi_k25_vl_pipeline_layout": {
        (4, 1): "Et*16|t*16|t*16|t*13L", (8, 1): _KIMI_K2_8, (4, 2): _KIMI_K2_8,
        (16, 1): _KIMI_K2_16, (8, 2): _KIMI_K2_16, (4, 4): _KIMI_K2_16, (2, 8): _KIMI_K2_16,
    },
}
# Layout helpers the recipes call with the model config, which pick the layout from its PP and VP:
# helper name -> (PP, VP, MTP layers) -> layout string, or None where the helper sets none.
# Megatron-Bridge recipes/deepseek/h100/deepseek_v3.py set_deepseek_v3_pipeline_model_parallel_layout
# (mtp_standalone False) -> _get_deepseek_v3_pipeline_layout: 61 decoder layers, the MTP layers and the
# loss on the last stage; a (PP, VP) outside its map raises, caught, and no layout is set.
def _deepseek_v3_layout(pp, vp, mtp):
    tail = "m" * mtp + "L"
    return {
        (4, 1): "Et*16|t*16|t*16|t*13" + tail,
        (8, 1): "Et*8|(t*8|)*6t*5" + tail, (4, 2): "Et*8|(t*8|)*6t*5" + tail,
        (16, 1): "Et*4|(t*4|)*14t" + tail, (8, 2): "Et*4|(t*4|)*14t" + tail, (4, 4): "Et*4|(t*4|)*14t" + tail,
    }.get((pp, vp))


MODEL_CONFIG_LAYOUT_HELPERS = {
    "set_deepseek_v3_pipeline_model_parallel_layout": _deepseek_v3_layout,
}
# Recipes that pass the helper an explicit layout (its `layout` argument wins over the map), as the
# perf recipes spell it, by (source file, recipe): Megatron-Bridge perf_recipes/deepseek/*/deepseek_v3.py.
HELPER_CALL_LAYOUTS = {
    ("perf_recipes/deepseek/gb200/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb200_fp8mx_partial_cg_dev_config"): "Et*4|(tttt|)*14tmL",
    ("perf_recipes/deepseek/gb300/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb300_bf16_config"): "Et*4|(t*4|)*14tmL",
    ("perf_recipes/deepseek/gb300/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb300_fp8cs_config"): "Et*4|(t*4|)*14tmL",
    ("perf_recipes/deepseek/gb300/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb300_fp8mx_config"): "Et*4|(t*4|)*14tmL",
    ("perf_recipes/deepseek/gb300/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb300_nvfp4_config"): "Et*4|(t*4|)*14tmL",
    ("perf_recipes/deepseek/gb300/deepseek_v3.py", "deepseek_v3_pretrain_256gpu_gb300_fp8mx_partial_cg_dev_config"): "Et*4|(tttt|)*14tmL",
    ("perf_recipes/deepseek/h100/deepseek_v3.py", "deepseek_v3_pretrain_1024gpu_h100_bf16_config"): "Et|(tt|)*30mL",
    ("perf_recipes/deepseek/h100/deepseek_v3.py", "deepseek_v3_pretrain_1024gpu_h100_fp8cs_config"): "Et|(tt|)*30mL",
    ("perf_recipes/deepseek/h100/deepseek_v3.py", "deepseek_v3_pretrain_64gpu_h100_fp8cs_config"): "Et|(tt|)*30mL",
}

# Settings the static read records from a helper that the recipe never turns on, by helper.
# Megatron-Bridge perf_recipes/gpt_oss/common.py _apply_gpt_oss_20b_common_configs sets
# cpu_offloading_num_layers = 95 but never cpu_offloading = True, and Megatron-Core reads the count
# only with cpu_offloading on (transformer_config.py __post_init__: "CPU offloading can be done only
# for layers less than num_layers"): those recipes run without activation offload.
# Recipes whose Bridge function sets the Muon optimizer in code, and the recipes built on them:
# recipes/kimi/h100/kimi_k2.py kimi_k2_pretrain_512gpu_h100_bf16_config calls
# _apply_kimi_k2_optimizer(cfg, "muon") (optimizer dist_muon, grad_reduce_in_fp32=True), and the Kimi-K2
# performance recipes start from it (scripts/performance/argument_parser.py --optimizer_type defaults to
# muon). A precision variant "[muon]" (DeepSeek-V4-Flash) is the same optimizer.
MUON_RECIPES = {"kimi_k2_pretrain_512gpu_h100_bf16_config": {"grad_reduce_in_fp32": True}}

# Library recipes that reduce gradients in BF16. Megatron-Bridge's MixedPrecisionConfig.setup()
# copies its grad_reduce_in_fp32 onto the DDP config (training/mixed_precision.py
# update_config_with_precision_overrides), so the value a recipe runs is the mixed-precision config's:
# True for "bf16_mixed" / bf16_mixed() and the other registry recipes (MixedPrecisionConfig default),
# False only where the recipe (or the function it starts from, or a helper it calls with its cfg) sets
# `cfg.mixed_precision.grad_reduce_in_fp32 = False`; `cfg.ddp.grad_reduce_in_fp32 = False` alone is
# overwritten ("it must be set here rather than on cfg.ddp alone", recipes/nemotronh/h100/
# nemotron_3_super.py). These are the library recipes of megatron_bridge_recipes.csv where it is False at
# 067f987df, found by walking each recipe function's statements in order through `cfg = base()` and
# helper calls (Python ast); the other library records keep the library default, True.
LIBRARY_BF16_GRAD_REDUCE = {
    "glm52_pretrain_192gpu_gb200_bf16_config",
    "glm52_pretrain_416gpu_h100_bf16_config",
    "gpt3_175b_pretrain_32gpu_h100_bf16_config",
    "llama31_405b_peft_32gpu_h100_bf16_config",
    "llama31_405b_sft_128gpu_h100_bf16_config",
    "moonlight_16b_sft_8gpu_h100_bf16_tp1_config",
    "nemotron_3_nano_pretrain_8gpu_gb200_bf16_config",
    "nemotron_3_nano_pretrain_8gpu_h100_bf16_config",
    "nemotron_3_super_pretrain_16gpu_h100_bf16_config",
    "nemotron_3_super_pretrain_64gpu_gb200_bf16_config",
    "nemotron_3_super_sft_16gpu_h100_bf16_32k_config",
    "nemotron_3_super_sft_16gpu_h100_bf16_config",
    "nemotron_omni_cord_v2_long_context_sft_8gpu_h100_bf16_config",
    "qwen35_text_9b_pretrain_8gpu_gb200_bf16_config",
    "qwen35_vl_27b_pretrain_16gpu_gb200_bf16_mock_config",
    "qwen35_vl_35b_a3b_peft_8gpu_gb200_bf16_functional_config",
    "qwen35_vl_35b_a3b_pretrain_16gpu_h100_bf16_functional_config",
    "qwen35_vl_35b_a3b_sft_8gpu_gb200_bf16_functional_config",
    "qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config",
    "qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_functional_config",
    "qwen3_8b_pretrain_16gpu_h100_bf16_config",
}

INERT_HELPER_SETTINGS = {
    "_apply_gpt_oss_20b_common_configs": ("cpu_offload_layers",),
}
STATIC_READ_WIDTH = 80  # the CSV's `other` values are cut at this many characters


# Recipes whose Bridge function starts from a config the static read resolved to another function, by
# entry point: the settings that config really applies, which replace the record's layout, batch and
# settings (the CSV's `raw` stays as read). Megatron-Bridge 067f987df:
# - recipes/nemotronh/nemotron_3_super.py nemotron_3_super_pretrain_config() returns
#   recipes/nemotronh/h100/nemotron_3_super.py _nemotron_3_super_pretrain_64gpu_h100_bf16_config(): TP 1,
#   PP 2, CP 1, EP 32, ETP 1, no SP, seq 4096, GBS 1280, MBS 1, moe_token_dispatcher_type "flex" with
#   moe_flex_dispatcher_backend "hybridep", cuda_graph_impl "none", recompute_granularity "selective"
#   with recompute_modules [layernorm, moe_act, moe, core_attn] ("full MoE recompute provides the
#   measured H100 activation headroom"), the precision-aware optimizer, and (from the 16-GPU config it
#   starts from) mixed_precision.grad_reduce_in_fp32 = False and mtp_num_layers 2.
#   perf_recipes/nemotronh/h100/nemotronh.py imports that alias (`from
#   megatron.bridge.recipes.nemotronh.nemotron_3_super import nemotron_3_super_pretrain_config`) for
#   nemotron_3_super_pretrain_64gpu_h100_bf16_config and adds force-balanced routing and
#   _benchmark_common (grad_reduce_in_fp32 False); the static read took the name for the
#   perf_recipes/nemotronh/common.py alias of the 16-GPU config (TP 8, EP 16, seq 8192, TE graphs).
#   The verification card's `nemotron_3_super_pretrain_config` run is the same config with natural routing.
#   Not carried: moe_expert_capacity_factor 1.10 with moe_pad_expert_input_to_capacity (no layout field).
_SUPER_64GPU_H100 = OD([
    ("source", "Megatron-Bridge recipes/nemotronh/h100/nemotron_3_super.py@067f987df "
               "_nemotron_3_super_pretrain_64gpu_h100_bf16_config (alias nemotron_3_super_pretrain_config)"),
    ("workload", OD([("row_tokens", 4096), ("global_batch", 1280)])),
    ("layout", OD([("tp", 1), ("pp", 2), ("cp", 1), ("ep", 32), ("etp", 1), ("sequence_parallel", False),
                   ("rows_per_microbatch", 1), ("recompute", OD([("granularity", "selective")])),
                   ("dispatcher", "flex")])),
    ("features", OD([("cuda_graph", OD([("impl", "none"), ("scope", [])])),
                     ("recompute_modules", ["layernorm", "moe_act", "moe", "core_attn"]),
                     ("flex_backend", "hybridep"), ("precision_aware_optimizer", True),
                     ("grad_reduce_in_fp32", False), ("mtp_layers", 2)])),
])
# - recipes/nemotronh/h100/nemotron_3_nano.py nemotron_3_5_lightning_pretrain_config() starts from
#   nemotron_3_nano_pretrain_8gpu_h100_bf16_config() (HybridModelProvider(tensor_model_parallel_size=1,
#   expert_model_parallel_size=8, expert_tensor_parallel_size=1, ...), which the static read does not see;
#   seq 8192, MBS 1, flex/HybridEP, cross_entropy_fusion_impl "native", selective recompute,
#   mixed_precision.grad_reduce_in_fp32 = False) and sets GBS 512, CP 2, recompute_modules
#   [moe, layernorm, core_attn], TE CUDA graphs over [mamba] and mtp_num_layers 2.
#   recipes/nemotronh/gb200/nemotron_3_nano.py nemotron_3_5_lightning_pretrain_8k_config() starts from
#   that and sets MBS 2, CP 1, cross_entropy_fusion_impl "te", no CUDA graphs and no recompute.
_LIGHTNING_H100 = OD([
    ("source", "Megatron-Bridge recipes/nemotronh/h100/nemotron_3_nano.py@067f987df "
               "nemotron_3_5_lightning_pretrain_config (from nemotron_3_nano_pretrain_8gpu_h100_bf16_config)"),
    ("workload", OD([("row_tokens", 8192), ("global_batch", 512)])),
    ("layout", OD([("tp", 1), ("pp", 1), ("cp", 2), ("ep", 8), ("etp", 1), ("rows_per_microbatch", 1),
                   ("recompute", OD([("granularity", "selective")])), ("dispatcher", "flex")])),
    ("features", OD([("cuda_graph", OD([("impl", "transformer_engine"), ("modules", ["mamba"])])),
                     ("recompute_modules", ["moe", "layernorm", "core_attn"]), ("flex_backend", "hybridep"),
                     ("grad_reduce_in_fp32", False), ("mtp_layers", 2), ("cross_entropy_fusion_impl", "native")])),
])
_LIGHTNING_8K_GB200 = OD([
    ("source", "Megatron-Bridge recipes/nemotronh/gb200/nemotron_3_nano.py@067f987df "
               "nemotron_3_5_lightning_pretrain_8k_config (from nemotron_3_5_lightning_pretrain_config)"),
    ("workload", OD([("row_tokens", 8192), ("global_batch", 512)])),
    ("layout", OD([("tp", 1), ("pp", 1), ("cp", 1), ("ep", 8), ("etp", 1), ("rows_per_microbatch", 2),
                   ("dispatcher", "flex")])),
    ("features", OD([("cuda_graph", OD([("impl", "none"), ("scope", [])])), ("flex_backend", "hybridep"),
                     ("grad_reduce_in_fp32", False), ("mtp_layers", 2), ("cross_entropy_fusion_impl", "te")])),
])
CODE_BASE_CONFIGS = {
    "nemotron_3_super_pretrain_64gpu_h100_bf16_config": _SUPER_64GPU_H100,
    "nemotron_3_super_pretrain_config": _SUPER_64GPU_H100,
    "nemotron_3_5_lightning_pretrain_config": _LIGHTNING_H100,
    "nemotron_3_5_lightning_pretrain_8k_config": _LIGHTNING_8K_GB200,
}


def apply_code_base(d, entry):
    """Replace a record's layout, batch and settings by CODE_BASE_CONFIGS[entry], keeping what the
    record adds on top (force-balanced routing); a note names the source."""
    base = CODE_BASE_CONFIGS.get(entry)
    if base is None:
        return
    wl = d.setdefault("workload", OD())
    for k, v in base["workload"].items():
        wl[k] = v
    d["workload"] = OD([(k, wl[k]) for k in ("row_tokens", "global_batch", "precision") if k in wl])
    lay = OD(base["layout"])
    if not lay.get("sequence_parallel"):
        lay.pop("sequence_parallel", None)
    d["layout"] = lay
    keep = OD((k, v) for k, v in d.get("features", OD()).items() if k == "force_balance")
    feats = OD(base["features"])
    feats.update(keep)
    d["features"] = feats
    d.pop("base_recipe", None)
    d.pop("inherited_from_base", None)
    note = "Layout, batch and settings from %s." % base["source"]
    d["notes"] = (d["notes"] + " " + note) if d.get("notes") else note


def resolve_layout_helper(pl):
    """`<_get_kimi_k2_pipeline_layout(4, 4)>` -> the helper's layout string, or None."""
    m = re.match(r"^<(\w+)\((\d+),\s*(\d+)\)>$", pl or "")
    if not m or m.group(1) not in LAYOUT_HELPERS:
        return None
    return LAYOUT_HELPERS[m.group(1)].get((int(m.group(2)), int(m.group(3))))


def recipe_record(row, model_name, hw_docs):
    other = parse_other(row["other"])
    entry = other["recipe"]
    kind = "library" if row["source"].startswith("library_recipes") else "performance"
    prec_raw = row["precision"].strip()
    m = re.match(r"^([a-z0-9]+)(?: \[([^\]]+)\])?$", prec_raw)
    precision, variant = PRECISION[m.group(1)], m.group(2)

    gpu = OD([("type", row["gpu"]), ("count", int(row["num_gpus"]))])
    hw = hw_docs.get(row["gpu"])
    if hw and "node" in hw:
        gpu["per_node"] = min(int(row["num_gpus"]), hw["node"]["gpus"])

    workload = OD()
    workload["row_tokens"] = parse_seq(other.get("seq"))
    workload["global_batch"] = int_or_none(row["gbs"])
    workload["precision"] = precision
    workload = drop_none(workload)

    layout = OD()
    for key, col in (("tp", "tp"), ("pp", "pp"), ("vpp", "vp"), ("cp", "cp"), ("ep", "ep"), ("etp", "etp")):
        layout[key] = int_or_none(row[col])
    if truthy(other.get("sp")):
        layout["sequence_parallel"] = True
    layout["rows_per_microbatch"] = int_or_none(row["mbs"])
    features = OD()
    rc = parse_kv_list(row["recompute"])
    if rc:
        rec = OD()
        if "granularity" in rc:
            rec["granularity"] = rc["granularity"]
        if "method" in rc:
            rec["method"] = rc["method"]
        if "num_layers" in rc:
            rec["num_layers"] = int(rc["num_layers"])
        if rec:
            layout["recompute"] = rec
    if other.get("dispatcher"):
        layout["dispatcher"] = other["dispatcher"]
    layout = drop_none(layout)

    cg = parse_kv_list(row["cuda_graph"])
    if cg:
        features["cuda_graph"] = OD((k, cg[k]) for k in ("impl", "scope", "modules") if k in cg)
    if "modules" in rc:
        features["recompute_modules"] = rc["modules"]
    if other.get("flex_backend"):
        features["flex_backend"] = other["flex_backend"]
    if truthy(other.get("force_balance")):
        features["force_balance"] = True
    if truthy(other.get("fsdp")):
        features["fsdp"] = True
    if other.get("fsdp_strategy"):
        features["fsdp_strategy"] = other["fsdp_strategy"]
    inert = {k for h in other.get("helpers", "").split("|") for k in INERT_HELPER_SETTINGS.get(h, ())}
    if other.get("cpu_offload_layers") and "cpu_offload_layers" not in inert:
        features["cpu_offload_layers"] = int(other["cpu_offload_layers"])
    if truthy(other.get("fg_offload")):
        features["fine_grained_offload"] = True
    if other.get("offload_modules"):
        features["offload_modules"] = parse_kv_list("x=" + other["offload_modules"])["x"]
    coc = other.get("comm_overlap_cfg", "")
    if truthy(other.get("ep_a2a_overlap")) or "overlap_moe_expert_parallel_comm=True" in coc:
        features["ep_a2a_overlap"] = True
    if truthy(other.get("tp_comm_overlap")) or "tp_comm_overlap=True" in coc:
        features["tp_comm_overlap"] = True
    if coc:
        features["comm_overlap_config"] = coc
    muon = MUON_RECIPES.get(entry, MUON_RECIPES.get(other.get("base")))
    if variant == "muon" or muon is not None:
        features["optimizer"] = "muon"
        features.update(muon or {})
    features.update(kernel_features(entry, other.get("helpers", "").split("|")))
    if truthy(other.get("precision_aware_opt")):
        features["precision_aware_optimizer"] = True
    if kind == "library" and entry in LIBRARY_BF16_GRAD_REDUCE:
        features["grad_reduce_in_fp32"] = False
    if truthy(other.get("fp8_param_gather")):
        features["fp8_param_gather"] = True
    if other.get("mtp_layers"):
        features["mtp_layers"] = int(other["mtp_layers"])
    pl = other.get("pp_layout")
    layout_helpers = [h for h in other.get("helpers", "").split("|") if "pipeline_model_parallel_layout" in h]
    helper_fn = MODEL_CONFIG_LAYOUT_HELPERS.get(layout_helpers[0]) if layout_helpers else None
    helper_layout = HELPER_CALL_LAYOUTS.get((row["source"].split(":")[-1], entry)) if helper_fn else None
    helper_layout = helper_layout or (helper_fn(int_or_none(row["pp"]) or 1, int_or_none(row["vp"]) or 1,
                                                int(other.get("mtp_layers") or 0)) if helper_fn else None)
    if pl and not pl.startswith("<") and pl.endswith("L"):
        features["pipeline_layout"] = pl
    elif pl and not pl.startswith("<"):
        # A layout ends with L; one that does not was cut by the static read (a phrase: not modelled).
        features["pipeline_layout"] = "set in code; the static read cut it at %d characters: %s" % (
            STATIC_READ_WIDTH, pl)
    elif resolve_layout_helper(pl):
        features["pipeline_layout"] = resolve_layout_helper(pl)
    elif helper_layout:
        features["pipeline_layout"] = helper_layout
    elif layout_helpers:
        # The recipe sets its pipeline layout in code; the static read has only the helper's name.
        features["pipeline_layout"] = "set in code by %s" % layout_helpers[0]
    elif other.get("first_stage_layers") or other.get("last_stage_layers"):
        features["pipeline_layout"] = drop_none(OD([
            ("first_stage_layers", int_or_none(other.get("first_stage_layers"))),
            ("last_stage_layers", int_or_none(other.get("last_stage_layers")))]))

    settings = CODE_SET_SETTINGS.get(model_name)
    if settings and int_or_none(row["pp"]) not in (None, 1):
        features["settings"] = OD(settings)
    precision_settings = PERF_PRECISION_SETTINGS.get((row["model"], m.group(1))) if kind == "performance" else None
    if precision_settings:
        features.setdefault("settings", OD()).update(precision_settings)
    module_precision = PERF_MODULE_PRECISION.get((row["model"], m.group(1))) if kind == "performance" else None
    if module_precision:
        features.update(module_precision)
    if entry in RECIPE_DDP_SETTINGS:
        features.setdefault("settings", OD()).update(RECIPE_DDP_SETTINGS[entry])
    cp_comm = RECIPE_CP_COMM.get(entry) or MODEL_CP_COMM.get(model_name)
    if cp_comm:
        features.setdefault("settings", OD())["cp_comm_type"] = cp_comm
    library_precision = LIBRARY_PRECISION_SETTINGS.get(entry) if kind == "library" else None
    if library_precision:
        if library_precision[0]:
            workload["precision"] = library_precision[0]
        features.setdefault("settings", OD()).update(library_precision[1])

    d = OD()
    d["name"] = entry
    d["kind"] = kind
    d["mode"] = row["task"]
    d["framework"] = "megatron-bridge"
    d["entry_point"] = entry
    if variant:
        d["variant"] = variant
    d["source"] = row["source"]
    d["model"] = model_name
    d["gpu"] = gpu
    d["workload"] = workload
    d["layout"] = layout
    d["features"] = features
    vision = vision_block(entry, other)
    if vision:
        d["vision"] = vision
    if other.get("base"):
        d["base_recipe"] = other["base"]
    if other.get("derived_from"):
        d["derived_from"] = other["derived_from"].split("|")
    if other.get("inherited_from_base"):
        d["inherited_from_base"] = other["inherited_from_base"].split("|")
    if other.get("helpers"):
        d["helpers"] = other["helpers"].split("|")
    if other.get("model_src"):
        d["model_source"] = other["model_src"]
    d["raw"] = OD([("precision", row["precision"]), ("cuda_graph", row["cuda_graph"]), ("recompute", row["recompute"]),
                   ("other", row["other"])])
    apply_code_base(d, entry)
    if entry in KNOWN_ISSUES:
        d["known_issues"] = [OD([("rule", rule), ("note", note)]) for rule, note in KNOWN_ISSUES[entry]]
    return d


# --- known issues: findings of `recipebook check` that a generated record accepts ------------------
# scripts/known_issues.tsv (name, rule, note) is written by --accept-findings from the JSON of
# `recipebook check --builtin --json`: each error a generated record's static read gives, with a note
# saying so. Review the file's diff like code: it is the list of places where the source, read
# statically, disagrees with Megatron's rules.

KNOWN_ISSUES = {}
KNOWN_ISSUES_TSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_issues.tsv")

NOTE_TEMPLATES = {
    "RB-PP-LAYERS": "{msg}. Megatron-Bridge splits uneven layer counts in code (account_for_embedding/loss_in_"
                    "pipeline_split or a layout helper), which the static read of the source does not record; "
                    "unverified.",
}
DEFAULT_NOTE = ("{msg}. This is the layout as read statically from the source (see raw); the recipe may set other "
                "values in code at run time; unverified.")


def load_known_issues():
    KNOWN_ISSUES.clear()
    if not os.path.exists(KNOWN_ISSUES_TSV):
        return
    with open(KNOWN_ISSUES_TSV, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, rule, note = line.rstrip("\n").split("\t")
            KNOWN_ISSUES.setdefault(name, []).append((rule, note))


def accept_findings(json_path):
    import json
    with open(json_path, encoding="utf-8") as f:
        report = json.load(f)
    rows = set()
    for d in report["findings"] + report.get("accepted_findings", []):
        path = d["file"]
        if d["severity"] != "error" or not path.startswith("builtin:recipes/"):
            continue
        name = os.path.splitext(os.path.basename(path))[0]
        note = NOTE_TEMPLATES.get(d["rule"], DEFAULT_NOTE).format(msg=d["message"].rstrip("."))
        rows.add((name, d["rule"], note.replace("\t", " ")))
    with open(KNOWN_ISSUES_TSV, "w", encoding="utf-8") as f:
        f.write("# name\trule\tnote (written by gen_catalog.py --accept-findings; review the diff)\n")
        for r in sorted(rows):
            f.write("\t".join(r) + "\n")
    print("known issues: %d rows in %s" % (len(rows), KNOWN_ISSUES_TSV))


# --- measured rows ----------------------------------------------------------------------------------

def measured_precision(p):
    p = p.strip()
    if p.startswith("BF16"):
        return "bf16"
    if p.startswith("NVFP4"):
        return "nvfp4"
    if p.startswith("MXFP8") or p.startswith("FP8-MX"):
        return "mxfp8"
    if p.startswith("FP8-blockwise"):
        return "fp8_blockwise"
    if p.startswith("FP8"):
        return "fp8_cs"
    raise ValueError("unknown precision %r" % p)


MEASURED_LAYOUT = ("tp", "pp", "cp", "vp", "ep", "etp", "fsdp")

# Settings a measured run used that its recipe record (the recipe as it is now) does not: the
# workload base config of the run's release, read from Megatron-Bridge's history. Each rule matches
# the measured rows by model, GPU, precision, release and published layout/batch columns, and writes
# `layout_overrides` (catalog/schema/recipe.schema.yaml) on each: what `show`, `calibrate` and
# bench/accuracy estimate for that run (catalog/measured_points.cpp measured_run).
_DSV3_WBC = "Megatron-Bridge scripts/performance/configs/deepseek/deepseek_workload_base_configs.py"
MEASURED_RUN_SETTINGS = [
    # From cc31be266 (2026-02-03, "Dsv3 Recipe Update") to 8af195c0a^ (2026-06-06, before "DSV3 GB300
    # MXFP8 full-iter CG recipe"), DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V2 and _NVFP4_V2 were
    # DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_V2 = GB300_V1 (MBS 2, PP 2, VP 8, EP 32, pp_layout
    # Et*4|(t*4|)*14tmL, recompute_modules=["mla_up_proj"]) with GBS 4096: the 26.02-26.04.01 rows.
    # The recipe now runs MBS 1 without recompute (perf_recipes/deepseek/gb300/deepseek_v3.py).
    dict(model="DeepSeek-V3", gpu="gb300", precisions=("mxfp8", "nvfp4"),
         releases=("26.02", "26.02.01", "26.04", "26.04.01"), columns=dict(mbs="2", pp="2", vp="8", ep="32"),
         overrides=OD([("recompute", OD([("granularity", "selective")])), ("recompute_modules", ["mla_up_proj"])]),
         source=_DSV3_WBC + "@cc31be266..8af195c0a^ DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_V2 (FP8_MX_V2, NVFP4_V2): "
                "recompute_modules=[mla_up_proj], micro_batch_size=2"),
]

# Qwen3-30B-A3B MXFP8 on GB200, GB300 and B300 up to container 26.04.01: the workload base configs
# of Megatron-Bridge v0.2.0 (NeMo 25.11; docs/releases/software-versions.md) through v0.4.2 (the
# 26.04.01 summary) ran TE CUDA graphs over [moe_router, moe_preprocess] without MoE A2A overlap
# (WorkloadBaseConfig moe_a2a_overlap defaults to False, scripts/performance/utils/utils.py). v0.5.0
# (NeMo 26.06) switched them to moe_a2a_overlap=True, cuda_graph_impl="full_iteration", scope [],
# cutedsl_fused_grouped_mlp=True and fp8_dot_product_attention=True: the recipe as it is now
# (perf_recipes/qwen/common.py _enable_hybridep_full_iteration_mxfp8). The last two have no term
# in the estimator yet, so they are not carried.
_QWEN3_WBC_V020 = "Megatron-Bridge scripts/performance/configs/qwen3/workload_base_configs.py@v0.2.0"
_QWEN3_WBC = "Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py@v0.3.0..v0.4.2"
for _gpu, _v020, _v1 in (("gb200", "QWEN3_30B_A3B_GB200_FP8_MX_BASE_CONFIG", "QWEN3_30B_A3B_PRETRAIN_CONFIG_GB200_FP8_MX_V1"),
                         ("gb300", "QWEN3_30B_A3B_GB300_FP8_MX_BASE_CONFIG", "QWEN3_30B_A3B_PRETRAIN_CONFIG_GB300_FP8_MX_V1"),
                         ("b300", None, "QWEN3_30B_A3B_PRETRAIN_CONFIG_B300_FP8_MX_V1")):
    MEASURED_RUN_SETTINGS.append(dict(
        model="Qwen3-30B-A3B", gpu=_gpu, precisions=("mxfp8",),
        releases=("25.11", "26.02", "26.02.01", "26.04", "26.04.01"), columns=dict(),
        overrides=OD([("cuda_graph", OD([("impl", "transformer_engine"), ("scope", ["moe_router", "moe_preprocess"])])),
                      ("ep_a2a_overlap", False)]),
        source=("%s %s; " % (_QWEN3_WBC_V020, _v020) if _v020 else "") + "%s %s: cuda_graph_impl=transformer_engine, "
               "cuda_graph_scope=[moe_router, moe_preprocess], moe_a2a_overlap unset (False)" % (_QWEN3_WBC, _v1)))
# B200 MXFP8 at v0.3.1..v0.4.2 (26.02.01-26.04.01) is B200_BF16_V1: TE graphs over [attn, moe_router,
# moe_preprocess], MBS 4, HybridEP, no A2A overlap; the recipe now overlaps (perf_recipes/qwen/b200).
MEASURED_RUN_SETTINGS.append(dict(
    model="Qwen3-30B-A3B", gpu="b200", precisions=("mxfp8",), releases=("26.02.01", "26.04", "26.04.01"),
    columns=dict(mbs="4"), overrides=OD([("ep_a2a_overlap", False)]),
    source="Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py@v0.3.1..v0.4.2 "
           "QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_FP8_MX_V1 = B200_BF16_V1: moe_a2a_overlap unset (False)"))


# --- EP dispatchers the measured runs used (helper epdispatch) ---------------------------------------
# Before NeMo 26.04 each release's script chose the token dispatcher per model and GPU (from 26.04 the
# record's features.flex_backend applies: catalog/recipe_layout.hpp release_dispatcher). A rule here
# writes `layout_overrides.dispatcher` (and `flex_backend`) where the run's dispatcher differs from
# what the record and that release rule give; the EP A2A overlap goes with it where the same source
# sets it. NeMo 25.09 = Megatron-Bridge v0.1.0rc3, 25.11 = v0.2.0, 26.02 = v0.3.0, 26.02.01 = v0.3.1
# (docs/releases/software-versions.md and the summaries).
_RUN_SCRIPT_2509 = "Megatron-Bridge scripts/performance/run_script.py@v0.1.0rc3"
# DeepSeek-V3 on H100 at 25.09: run_script.py sets enable_deepep and A2A_1F1B for args.gpu == h100
# (deepseek_v3_pretrain_config(enable_deepep=True): moe_token_dispatcher_type="flex",
# moe_enable_deepep=True, recipes/deepseek/deepseek_v3.py@v0.1.0rc3) and
# comm_overlap.overlap_moe_expert_parallel_comm = True with delay_wgrad_compute = True.
MEASURED_RUN_SETTINGS.append(dict(
    model="DeepSeek-V3", gpu="h100", precisions=("bf16", "fp8_cs", "fp8_blockwise"), releases=("25.09",),
    columns=dict(), overrides=OD([("dispatcher", "flex"), ("flex_backend", "deepep"), ("ep_a2a_overlap", True)]),
    source=_RUN_SCRIPT_2509 + " deepseek v3 on h100: enable_deepep=True (moe_token_dispatcher_type=flex, "
           "moe_enable_deepep=True), A2A_1F1B: overlap_moe_expert_parallel_comm=True"))
# DeepSeek-V3 on GB200/GB300 at 25.11: DEEPSEEK_V3_GB200_BASE_CONFIG / GB300 set
# moe_flex_dispatcher_backend="hybridep" for every precision, passed to pretrain_config, which calls
# apply_flex_dispatcher_backend (HybridEP on GB200/GB300 at v0.2.0); the BF16 records read alltoall.
MEASURED_RUN_SETTINGS.append(dict(
    model="DeepSeek-V3", gpu="gb200", precisions=("bf16", "fp8_cs", "mxfp8"), releases=("25.11",),
    columns=dict(), overrides=OD([("dispatcher", "flex"), ("flex_backend", "hybridep")]),
    source="Megatron-Bridge scripts/performance/configs/deepseek/workload_base_configs.py@v0.2.0 "
           "DEEPSEEK_V3_GB200_BASE_CONFIG: moe_flex_dispatcher_backend=hybridep"))
MEASURED_RUN_SETTINGS.append(dict(
    model="DeepSeek-V3", gpu="gb300", precisions=("bf16", "fp8_cs", "mxfp8"), releases=("25.11",),
    columns=dict(), overrides=OD([("dispatcher", "flex"), ("flex_backend", "hybridep")]),
    source="Megatron-Bridge scripts/performance/configs/deepseek/workload_base_configs.py@v0.2.0 "
           "DEEPSEEK_V3_GB300_BASE_CONFIG: moe_flex_dispatcher_backend=hybridep"))
# DeepSeek-V3 on B200 at 26.02 and 26.02.01: DEEPSEEK_V3_PRETRAIN_CONFIG_B200_* (V1, V2, LARGE_SCALE)
# set hybridep, which v0.3.0 allows on sm100 (training/flex_dispatcher_backend.py: major in [8, 9, 10]).
MEASURED_RUN_SETTINGS.append(dict(
    model="DeepSeek-V3", gpu="b200", precisions=("bf16", "fp8_cs", "mxfp8"), releases=("26.02", "26.02.01"),
    columns=dict(), overrides=OD([("dispatcher", "flex"), ("flex_backend", "hybridep")]),
    source="Megatron-Bridge scripts/performance/configs/deepseek/deepseek_workload_base_configs.py@v0.3.0,v0.3.1 "
           "DEEPSEEK_V3_PRETRAIN_CONFIG_B200_*: moe_flex_dispatcher_backend=hybridep"))
# Qwen3-30B-A3B at 25.09 on every GPU: run_script.py applies apply_moe_token_drop, which asserts the
# alltoall dispatcher (training/utils/moe_token_drop.py@v0.1.0rc3), with CommOverlapConfig(tp_comm_overlap=True)
# (no EP overlap).
MEASURED_RUN_SETTINGS.append(dict(
    model="Qwen3-30B-A3B", gpu="*", precisions=("bf16", "fp8_cs", "mxfp8"), releases=("25.09",),
    columns=dict(), overrides=OD([("dispatcher", "alltoall"), ("ep_a2a_overlap", False)]),
    source=_RUN_SCRIPT_2509 + " qwen3 30b_a3b: apply_moe_token_drop (alltoall), CommOverlapConfig(tp_comm_overlap=True)"))
# Qwen3-30B-A3B on B200 at 25.11 and 26.02: QWEN3_30B_A3B_B200_*_BASE_CONFIG (v0.2.0) and
# QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_*_V1 (v0.3.0) set no flex backend: the provider's default
# moe_token_dispatcher_type="alltoall" (models/qwen/qwen_provider.py@v0.3.0 Qwen3MoEModelProvider),
# moe_a2a_overlap unset (False), TE graphs over [moe_router, moe_preprocess], MBS 1.
MEASURED_RUN_SETTINGS.append(dict(
    model="Qwen3-30B-A3B", gpu="b200", precisions=("bf16", "fp8_cs", "mxfp8"), releases=("25.11", "26.02"),
    columns=dict(mbs="1"),
    overrides=OD([("dispatcher", "alltoall"), ("ep_a2a_overlap", False),
                  ("cuda_graph", OD([("impl", "transformer_engine"), ("scope", ["moe_router", "moe_preprocess"])]))]),
    source="Megatron-Bridge scripts/performance/configs/qwen3/workload_base_configs.py@v0.2.0 "
           "QWEN3_30B_A3B_B200_FP8_MX_BASE_CONFIG, scripts/performance/configs/qwen/qwen3_workload_base_configs.py@v0.3.0 "
           "QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_FP8_MX_V1: no moe_flex_dispatcher_backend (qwen_provider.py@v0.3.0 "
           "moe_token_dispatcher_type=alltoall), moe_a2a_overlap unset (False), cuda_graph_scope=[moe_router, moe_preprocess]"))
# Qwen3-30B-A3B on H100 at 25.11: QWEN3_30B_A3B_H100_*_BASE_CONFIG set no backend (alltoall) and
# moe_a2a_overlap=True; at 26.02 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_*_V1 set deepep with the overlap.
# (26.02.01, v0.3.1, moved them to hybridep without overlap: the record.)
MEASURED_RUN_SETTINGS.append(dict(
    model="Qwen3-30B-A3B", gpu="h100", precisions=("bf16", "fp8_cs"), releases=("25.11",),
    columns=dict(), overrides=OD([("dispatcher", "alltoall"), ("ep_a2a_overlap", True)]),
    source="Megatron-Bridge scripts/performance/configs/qwen3/workload_base_configs.py@v0.2.0 "
           "QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG: no moe_flex_dispatcher_backend (alltoall), moe_a2a_overlap=True"))
MEASURED_RUN_SETTINGS.append(dict(
    model="Qwen3-30B-A3B", gpu="h100", precisions=("bf16", "fp8_cs"), releases=("26.02",),
    columns=dict(), overrides=OD([("dispatcher", "flex"), ("flex_backend", "deepep"), ("ep_a2a_overlap", True)]),
    source="Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py@v0.3.0 "
           "QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1: moe_flex_dispatcher_backend=deepep, moe_a2a_overlap=True"))
# --- activation offload the runs' releases set ------------------------------------------------------
# Llama-3.1-405B FP8-CS on 128 GB200 (TP 2, Megatron-FSDP) at 25.09 and 25.11: the release's performance
# config offloaded the activations of most layers to the CPU, which the recipe record (now TP 4, PP 16)
# does not. scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml@v0.1.0rc3 perf_matrix
# gb200 fp8_cs: cpu_offloading_num_layers 95; scripts/performance/configs/llama31/workload_base_configs.py
# @v0.2.0 LLAMA31_405B_GB200_FP8_CS_BASE_CONFIG: cpu_offloading_num_layers=92. Both releases' helpers
# (scripts/performance/utils/helpers.py) set model.cpu_offloading = True, cpu_offloading_weights = False
# with that count: activations only.
for _rel, _n, _src in (("25.09", 95, "scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml@v0.1.0rc3 "
                                     "gb200 fp8_cs: cpu_offloading_num_layers 95"),
                       ("25.11", 92, "scripts/performance/configs/llama31/workload_base_configs.py@v0.2.0 "
                                     "LLAMA31_405B_GB200_FP8_CS_BASE_CONFIG: cpu_offloading_num_layers=92")):
    MEASURED_RUN_SETTINGS.append(dict(
        model="Llama-3.1-405B", gpu="gb200", precisions=("fp8_cs",), releases=(_rel,), columns=dict(tp="2"),
        overrides=OD([("cpu_offload_layers", _n)]),
        source="Megatron-Bridge " + _src + " (utils/helpers.py: cpu_offloading=True, cpu_offloading_weights=False)"))
# Nemotron-3-Nano FP8-CS on 16 H100 at 26.02.01-26.06 (EP 8): the workload base config of those releases
# recomputed more than the recipe does now (perf_recipes/nemotronh/h100/nemotronh.py: EP 16,
# recompute_modules [layernorm], graphs over [attn, mamba]). scripts/performance/configs/nemotronh/
# nemotron_3_nano_workload_base_configs.py@v0.3.1 and nemotron_3_workload_base_configs.py@v0.4.0..v0.5.0
# NEMOTRON_3_NANO_PRETRAIN_CONFIG_H100_FP8_CS_V1: recompute_modules=["moe", "layernorm", "core_attn",
# "moe_act"], cuda_graph_scope=["mamba"] (TE graphs), EP 8.
MEASURED_RUN_SETTINGS.append(dict(
    model="Nemotron-3-Nano-30B-A3B", gpu="h100", precisions=("fp8_cs",),
    releases=("26.02.01", "26.04", "26.04.01", "26.06"), columns=dict(ep="8"),
    overrides=OD([("recompute", OD([("granularity", "selective")])),
                  ("recompute_modules", ["moe", "layernorm", "core_attn", "moe_act"]),
                  ("cuda_graph", OD([("impl", "transformer_engine"), ("scope", ["mamba"])]))]),
    source="Megatron-Bridge scripts/performance/configs/nemotronh/nemotron_3_nano_workload_base_configs.py@v0.3.1, "
           "nemotron_3_workload_base_configs.py@v0.4.0..v0.5.0 NEMOTRON_3_NANO_PRETRAIN_CONFIG_H100_FP8_CS_V1: "
           "recompute_modules=[moe, layernorm, core_attn, moe_act], cuda_graph_scope=[mamba]"))
# --- micro batches the runs' releases set where the published column disagrees ---------------------
# Llama-3-70B MXFP8 on 64 GB200 at 25.09 and 25.11: published MBS 2, but with GA 16 (also published:
# 128 / DP 8 / 16 = MBS 1), and both releases' configs run MBS 1: scripts/performance/configs/llama3/
# llama3_70b_llm_pretrain.yaml@v0.1.0rc3 perf_matrix gb200 fp8_mx (mbs 1, TP 2, PP 4, VP 5) and
# workload_base_configs.py@v0.2.0 LLAMA3_70B_GB200_FP8_MX_BASE_CONFIG (WorkloadBaseConfig default
# micro_batch_size=1, utils/utils.py).
for _rel, _src in (("25.09", "scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml@v0.1.0rc3 "
                             "gb200 fp8_mx: mbs 1"),
                   ("25.11", "scripts/performance/configs/llama3/workload_base_configs.py@v0.2.0 "
                             "LLAMA3_70B_GB200_FP8_MX_BASE_CONFIG: micro_batch_size unset (1)")):
    MEASURED_RUN_SETTINGS.append(dict(
        model="Llama-3-70B", gpu="gb200", precisions=("mxfp8",), releases=(_rel,), columns=dict(mbs="2", tp="2"),
        overrides=OD([("rows_per_microbatch", 1)]),
        source="Megatron-Bridge " + _src + " (the published GA 16 is MBS 1 too)"))
# GPT-OSS-120B BF16 on 64 H100 at 25.11: published MBS 4 (GA 2, which fits neither); the release's
# config runs MBS 1: scripts/performance/configs/gpt_oss/workload_base_configs.py@v0.2.0
# GPT_OSS_120B_H100_BF16_BASE_CONFIG = BASE_GPT_OSS_120B_CONFIG (micro_batch_size=1) with PP 4 and
# recompute_modules [layernorm, moe_act]; MBS 4 is the B200/GB200/GB300 configs'.
MEASURED_RUN_SETTINGS.append(dict(
    model="gpt-oss-120b", gpu="h100", precisions=("bf16",), releases=("25.11",), columns=dict(mbs="4"),
    overrides=OD([("rows_per_microbatch", 1)]),
    source="Megatron-Bridge scripts/performance/configs/gpt_oss/workload_base_configs.py@v0.2.0 "
           "GPT_OSS_120B_H100_BF16_BASE_CONFIG: BASE_GPT_OSS_120B_CONFIG micro_batch_size=1"))
# --- end of EP dispatchers ---------------------------------------------------------------------------


# --- TE fused grouped MLP and FP8 attention (layout fused_grouped_mlp, fp8_attention) ----------------
# The records carry what the recipes set at main (HELPER_KERNEL_FEATURES, RECIPE_KERNEL_FEATURES); these
# rules give the runs of releases whose Megatron-Bridge did not set them. WorkloadBaseConfig has had
# cutedsl_fused_grouped_mlp and fp8_dot_product_attention since v0.5.0 (NeMo 26.06,
# docs/releases/software-versions.md; scripts/performance/utils/utils.py, applied in
# scripts/performance/utils/overrides.py as model.use_transformer_engine_op_fuser and
# mixed_precision.fp8_dot_product_attention, perf_plugins.py exporting NVTE_CUTEDSL_FUSED_GROUPED_MLP=1);
# no release before it sets either. At v0.5.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB200,GB300,B300}_FP8_MX_V1
# and DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V1 set both, DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_FP8_MX_V1 the
# fused MLP only (as the records), and the B300 DeepSeek-V3 MXFP8 config neither (v0.5.1 adds both).
# Nemotron 3 Super / Nano / 3.5 Lightning set neither through v0.6.0 (perf_recipes/nemotronh: only the
# Ultra defaults set the op fuser); main sets both in their MXFP8 recipes.
_NO_TE_KERNELS = OD([("fused_grouped_mlp", False), ("fp8_attention", False)])
_BEFORE_V050 = ("25.09", "25.11", "26.02", "26.02.01", "26.04", "26.04.01")
_WBC_FIELDS = ("Megatron-Bridge scripts/performance/utils/utils.py WorkloadBaseConfig@v0.5.0 adds "
               "cutedsl_fused_grouped_mlp and fp8_dot_product_attention; releases up to v0.4.2 set neither")
for _model, _gpus in (("Qwen3-30B-A3B", ("gb200", "gb300", "b300")), ("DeepSeek-V3", ("gb200", "gb300", "b300"))):
    for _gpu in _gpus:
        MEASURED_RUN_SETTINGS.append(dict(model=_model, gpu=_gpu, precisions=("mxfp8",), releases=_BEFORE_V050,
                                          columns=dict(), overrides=_NO_TE_KERNELS, source=_WBC_FIELDS))
MEASURED_RUN_SETTINGS.append(dict(
    model="DeepSeek-V3", gpu="b300", precisions=("mxfp8",), releases=("26.06",), columns=dict(),
    overrides=_NO_TE_KERNELS,
    source=_DSV3_WBC + "@v0.5.0: no B300 FP8_MX config sets cutedsl_fused_grouped_mlp or fp8_dot_product_attention "
           "(DEEPSEEK_V3_PRETRAIN_CONFIG_B300_FP8_MX_V1 sets both from v0.5.1)"))
for _model in ("Nemotron-3-Super-120B-A12B", "Nemotron-3-Nano-30B-A3B", "Nemotron-3.5-Lightning"):
    for _gpu in ("gb200", "gb300"):
        MEASURED_RUN_SETTINGS.append(dict(
            model=_model, gpu=_gpu, precisions=("mxfp8",),
            releases=_BEFORE_V050 + ("26.06", "26.06.01", "26.08", "card (nvcr.io/nvidia/nemo:26.08)"), columns=dict(),
            overrides=_NO_TE_KERNELS,
            source="Megatron-Bridge perf_recipes/nemotronh/{gb200,gb300}/nemotronh.py@v0.6.0 and the workload base "
                   "configs before it: neither use_transformer_engine_op_fuser nor fp8_dot_product_attention"))


def measured_run_settings(row, model, gpu, prec):
    """The layout_overrides of a measured row (MEASURED_RUN_SETTINGS), or None. Every matching rule
    contributes its settings (a feature rule and a dispatcher rule may both match a row); the sources
    are joined. Two rules that set one key differently are an error in the table."""
    out = None
    sources = []
    for rule in MEASURED_RUN_SETTINGS:
        if (rule["model"] == model and (rule["gpu"] == gpu or rule["gpu"] == "*") and prec in rule["precisions"]
                and row["release"] in rule["releases"]
                and all(row[k].strip() == v for k, v in rule["columns"].items())):
            rule["matched"] = rule.get("matched", 0) + 1
            out = out if out is not None else OD()
            for k, v in rule["overrides"].items():
                if k in out and out[k] != v:
                    raise ValueError("MEASURED_RUN_SETTINGS: %s %s %s sets %s twice" % (model, gpu, row["release"], k))
                out[k] = v
            sources.append(rule["source"])
    if out is not None:
        out["source"] = "; ".join(sources)
    return out


def measurement_entry(row, gpu_name, overrides=None):
    layout = OD()
    na = []
    for k in MEASURED_LAYOUT:
        v = row[k].strip()
        if v == "n/a":
            na.append(k)
        layout[k] = int_or_none(v)
    m = OD()
    m["release"] = row["release"]
    m["source"] = row["source_file"]
    notes = row["notes"].strip()
    m["current"] = not (notes.startswith("SUPERSEDED") or notes.startswith("DRAFT"))
    # A benchmark run: a performance-table row, or a verification card's pretrain_performance item
    # (synthetic data, force-balanced routing, the recipe's batch). The other card items train on a
    # dataset whose tokens per step the card does not state: predicted, never calibrated on.
    card = "model_verification_cards" in row["source_file"] or row["release"].startswith("card")
    m["benchmark"] = not card or "item=pretrain_performance" in notes
    m["model"] = row["model"]
    m["task"] = row["task"]
    m["gpus"] = int(row["num_gpus"])
    m["gpu"] = gpu_name
    m["gpu_published"] = row["gpu"]
    m["precision"] = row["precision"]
    m["gbs"] = int_or_none(row["gbs"])
    m["mbs"] = int_or_none(row["mbs"])
    m["seq"] = int_or_none(row["seq_len"])
    m["layout"] = layout
    if na:
        m["not_applicable"] = na
    m["tokens_per_s_per_gpu"] = num(row["tokens_per_s_per_gpu"])
    m["model_tflops_per_gpu"] = num(row["tflops_per_gpu"])
    if notes:
        m["notes"] = notes
    if overrides:
        m["layout_overrides"] = overrides
    return m


def layout_score(rec, row):
    """Agreement between a recipe record and a measured row's published layout and batch."""
    lay, wl = rec["layout"], rec["workload"]
    pairs = [(lay.get("tp"), row["tp"]), (lay.get("pp"), row["pp"]), (lay.get("cp"), row["cp"]),
             (lay.get("ep"), row["ep"]), (lay.get("vpp"), row["vp"]), (lay.get("rows_per_microbatch"), row["mbs"]),
             (wl.get("global_batch"), row["gbs"]), (wl.get("row_tokens"), row["seq_len"])]
    score = 0
    for a, b in pairs:
        b = int_or_none(b)
        if a is None or b is None:
            continue
        score += 1 if a == b else -1
    return score


def attach_measured(meas_rows, records, resolve_model, models):
    """Attach each measured row to the recipe it measured; return the records made for the rest."""
    by_entry = defaultdict(list)
    by_key = defaultdict(list)
    for r in records:
        by_entry[r["entry_point"]].append(r)
        by_key[(r["model"], r["gpu"]["type"], r["gpu"]["count"], r["mode"], r["workload"]["precision"])].append(r)
    made = []
    names = set(r["name"] for r in records)
    stats = defaultdict(int)
    for row in meas_rows:
        model = resolve_model(row["model"])
        if model is None:
            raise SystemExit("measured row names an unknown model: %r" % row["model"])
        gpu = MEASURED_GPU[row["gpu"]]
        mode = "peft" if row["task"] == "lora" else row["task"]
        prec = measured_precision(row["precision"])
        named = re.search(r"recipe=([A-Za-z0-9_]+)", row["notes"])
        target = None
        if named:
            cands = by_entry.get(named.group(1), [])
            if cands:
                perf_card = "item=pretrain_performance" in row["notes"]
                cands = sorted(cands, key=lambda r: (-layout_score(r, row),
                                                     0 if (r["kind"] == "performance") == perf_card else 1, r["name"]))
                target = cands[0]
                stats["attached by the recipe named in the notes"] += 1
        else:
            cands = by_key.get((model, gpu, int(row["num_gpus"]), mode, prec), [])
            perf = [r for r in cands if r["kind"] == "performance"]
            cands = perf or cands
            if cands:
                cands = sorted(cands, key=lambda r: (-layout_score(r, row), 1 if r.get("variant") else 0, r["name"]))
                target = cands[0]
                stats["attached by model/GPU/count/task/precision%s" % (" + layout" if len(cands) > 1 else "")] += 1
        entry = measurement_entry(row, gpu, measured_run_settings(row, model, gpu, prec))
        if target is not None:
            target.setdefault("measurements", []).append(entry)
            continue
        stats["made a measured record"] += 1
        rel = re.sub(r"[^a-z0-9]+", "-", row["release"].lower()).strip("-")
        base = "measured-%s-%s-%sx%s-%s-%s" % (slug(model), mode, row["num_gpus"], gpu, prec, rel)
        name, k = base, 2
        while name in names:
            name, k = "%s-%d" % (base, k), k + 1
        names.add(name)
        d = OD()
        d["name"] = name
        d["kind"] = "measured"
        d["mode"] = mode
        d["framework"] = "megatron-bridge"
        if named:
            d["entry_point"] = named.group(1)
        d["source"] = row["source_file"]
        d["model"] = model
        hw_per_node = {"h100": 8, "b200": 8, "b300": 8, "gb200": 4, "gb300": 4}[gpu]
        d["gpu"] = OD([("type", gpu), ("count", int(row["num_gpus"])), ("per_node", min(int(row["num_gpus"]), hw_per_node))])
        d["workload"] = drop_none(OD([("row_tokens", int_or_none(row["seq_len"])), ("global_batch", int_or_none(row["gbs"])),
                                      ("precision", prec)]))
        lay = OD()
        for key, col in (("tp", "tp"), ("pp", "pp"), ("vpp", "vp"), ("cp", "cp"), ("ep", "ep"), ("etp", "etp")):
            lay[key] = int_or_none(row[col])
        lay["rows_per_microbatch"] = int_or_none(row["mbs"])
        # The run ran: with TP > 1 Megatron-Bridge runs sequence parallelism (Megatron-Core refuses a
        # MoE layer with TP > 1 without it), which the published rows do not state.
        if (lay.get("tp") or 1) > 1:
            lay["sequence_parallel"] = True
        d["layout"] = drop_none(lay)
        fs = int_or_none(row["fsdp"])
        if fs:
            d["features"] = OD([("fsdp", True)])
        if named:
            d["notes"] = ("The verification card names recipe %s, which is not among the Megatron-Bridge recipes "
                          "in megatron_bridge_recipes.csv." % named.group(1))
        if named:
            apply_code_base(d, named.group(1))
        d["measurements"] = [entry]
        made.append(d)
    return made, stats


# ==================================================================================================
# Writing
# ==================================================================================================

def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def is_generated(path):
    try:
        with open(path, encoding="utf-8") as f:
            return GENERATED_MARK in f.readline() + f.readline()
    except OSError:
        return False


FITTED_MARK = "fitted by `recipebook calibrate --fit`"


def _efficiency_block(text):
    """The top-level `efficiency:` block of a hardware file (to the next top-level key), or None."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("efficiency:"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                j += 1
            return "".join(lines[i:j]), i, j
    return None


def keep_fitted_efficiency(old, new):
    """A regenerated hardware file keeps the efficiencies `recipebook calibrate --fit` wrote."""
    ob = _efficiency_block(old)
    nb = _efficiency_block(new)
    if not ob or not nb or FITTED_MARK not in ob[0]:
        return new
    lines = new.splitlines(keepends=True)
    return "".join(lines[:nb[1]]) + ob[0] + "".join(lines[nb[2]:])


MICROBENCH_KEY = "microbenchmarks:"


def _top_block(text, key):
    """The top-level block starting with `key` (to the next top-level key): (text, start, end) or None."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(key):
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                j += 1
            return "".join(lines[i:j]), i, j
    return None


def keep_microbenchmarks(old, new):
    """A regenerated hardware file keeps its hand-curated `microbenchmarks:` block (published figures
    with sources, docs/model.md "Hardware"), before `efficiency:`; a neutral (unfitted) efficiency
    block is then dropped, so that the loader derives the efficiencies from the microbenchmarks."""
    ob = _top_block(old, MICROBENCH_KEY)
    if not ob:
        return new
    lines = new.splitlines(keepends=True)
    nb = _efficiency_block(new)
    if not nb:
        return new + ob[0]
    eff = nb[0] if FITTED_MARK in nb[0] else ""
    return "".join(lines[:nb[1]]) + ob[0] + eff + "".join(lines[nb[2]:])


def write_all(root, files):
    """Write {relative path: text}; remove stale generated files; never touch hand-written ones."""
    written = 0
    for relpath, text in sorted(files.items()):
        if relpath in PROTECTED:
            raise SystemExit("refusing to generate protected file %s" % relpath)
        path = os.path.join(root, relpath)
        if os.path.exists(path) and not is_generated(path):
            raise SystemExit("refusing to overwrite hand-written file %s" % relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
            text = keep_microbenchmarks(old, keep_fitted_efficiency(old, text))
        if old != text:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            written += 1
    removed = 0
    for sub in ("models", "hardware", "recipes"):
        for dirpath, _, filenames in os.walk(os.path.join(root, "catalog", sub)):
            for fn in filenames:
                p = os.path.join(dirpath, fn)
                r = rel(root, p)
                if r not in files and r not in PROTECTED and is_generated(p):
                    os.remove(p)
                    removed += 1
    for dirpath, dirnames, filenames in sorted(os.walk(os.path.join(root, "catalog", "recipes")), reverse=True):
        if not dirnames and not filenames and dirpath != os.path.join(root, "catalog", "recipes"):
            os.rmdir(dirpath)
    return written, removed


def header(kind):
    return [GENERATED_MARK, kind]


def generate(root, data_dir):
    load_known_issues()
    models_rows = read_csv(os.path.join(data_dir, "models.csv"))
    gpus_rows = read_csv(os.path.join(data_dir, "gpus.csv"))
    recipe_rows = read_csv(os.path.join(data_dir, "megatron_bridge_recipes.csv"))
    meas_rows = read_csv(os.path.join(data_dir, "measured_megatron_bridge.csv"))

    hw = hardware_docs(gpus_rows)
    models = model_docs(models_rows)
    resolve_model = Resolver(models)
    if resolve_model.collisions:
        raise SystemExit("model names collide when folded: %s" % resolve_model.collisions)

    # Which recipes / measured rows name each model (for the stubs' `source`).
    named_by = defaultdict(set)
    records = []
    for row in recipe_rows:
        m = resolve_model(row["model"])
        if m is None:
            raise SystemExit("recipe model stem %r resolves to no catalog model: add it to MODEL_ALIASES or STUB_MODELS" % row["model"])
        named_by[m].add("recipe stem %s (%s)" % (row["model"], row["source"].split(":", 1)[1]))
        records.append(recipe_record(row, m, hw))
    for row in meas_rows:
        m = resolve_model(row["model"])
        if m is None:
            raise SystemExit("measured model %r resolves to no catalog model" % row["model"])
        named_by[m].add("measured_megatron_bridge.csv model %r (%s)" % (row["model"], row["source_file"]))
    for name, d in models.items():
        if d.get("source") is None:
            d["source"] = stub_source(d, sorted(named_by.get(name, [])))
        cfg = d.get("hf_config")
        if cfg and not os.path.exists(os.path.join(root, "catalog", "models", cfg)):
            raise SystemExit("%s: hf_config %s is not under catalog/models/" % (name, cfg))

    # Unique names: a recipe function that appears twice keeps its name for the first (performance)
    # record; the other gets "-<kind>" (and "-<variant>" if that is still ambiguous).
    seen = defaultdict(list)
    for r in records:
        seen[r["entry_point"]].append(r)
    collisions = []
    for entry, rs in sorted(seen.items()):
        if len(rs) < 2:
            continue
        rs_sorted = sorted(rs, key=lambda r: (0 if r["kind"] == "performance" else 1, r["source"]))
        for r in rs_sorted[1:]:
            r["name"] = "%s-%s" % (entry, r["kind"])
            note = ("Name collision: Megatron-Bridge has two recipes named %s (%s); this record is the %s one, renamed "
                    "%s in the catalog; bare lookup of %s resolves to the %s record from %s."
                    % (entry, " and ".join(sorted(x["source"] for x in rs)), r["kind"], r["name"], entry,
                       rs_sorted[0]["kind"], rs_sorted[0]["source"]))
            r["notes"] = note
            rs_sorted[0]["notes"] = ("Name collision: %s is also the name of a %s recipe (%s), catalogued as %s."
                                     % (entry, r["kind"], r["source"], r["name"]))
            collisions.append((entry, rs_sorted[0]["source"], r["name"], r["source"]))
    names = [r["name"] for r in records]
    assert len(names) == len(set(names)), "recipe names are not unique"

    # Seed 000: the perf recipe whose name the library recipe avoids.
    for r in records:
        if r["name"] == "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_config":
            r["notes"] = ("Name collision (seed 000): Megatron-Bridge's library recipe with the same purpose is named "
                          "qwen35_vl_35b_a3b_pretrain_8gpu_gb300_fp8mx_library_config because this name is already this "
                          "perf recipe (a mock-data benchmark with EP 8 and global batch 512), and bare recipe lookup keeps "
                          "resolving this name to it.")

    made, stats = attach_measured(meas_rows, records, resolve_model, models)
    records += made

    files = {}
    for name, d in hw.items():
        files["catalog/hardware/%s.yaml" % name] = dump(d, header("Hardware entry (format: docs/catalog-format.md; schema: catalog/schema/hardware.schema.yaml)."))
    for name, d in models.items():
        files["catalog/models/%s.yaml" % slug(name)] = dump(d, header("Model entry (format: docs/catalog-format.md; schema: catalog/schema/model.schema.yaml)."))
    for r in records:
        path = "catalog/recipes/%s/%s/%s.yaml" % (slug(r["model"]), r["gpu"]["type"], r["name"])
        assert path not in files, path
        files[path] = dump(r, header("Recipe record (format: docs/catalog-format.md; schema: catalog/schema/recipe.schema.yaml)."))
    written, removed = write_all(root, files)
    attached = sum(len(r.get("measurements", [])) for r in records if r["kind"] != "measured")
    print("generated: %d hardware, %d models (%d with architecture, %d from config.json, %d of a kind without one), %d recipe records (%d from megatron_bridge_recipes.csv, %d measured)"
          % (len(hw), len(models), sum(1 for d in models.values() if "architecture" in d),
             sum(1 for d in models.values() if "hf_config" in d), sum(1 for d in models.values() if "kind" in d), len(records),
             len(records) - len(made), len(made)))
    print("files: %d written or changed, %d stale removed" % (written, removed))
    print("measured rows: %d attached to recipe records, %d made measured records" % (attached, len(made)))
    for k in sorted(stats):
        print("  %-60s %d" % (k, stats[k]))
    for rule in MEASURED_RUN_SETTINGS:
        print("  run settings %s %s %s: %d rows" % (rule["model"], rule["gpu"], "/".join(rule["precisions"]),
                                                   rule.get("matched", 0)))
    print("name collisions (%d):" % len(collisions))
    for entry, src1, name2, src2 in collisions:
        print("  %s (%s) / %s (%s)" % (entry, src1, name2, src2))


# ==================================================================================================
# Check: the C++ side's, not a second reader and schema validator here
# ==================================================================================================
#
# The catalog is validated by the project's own loader: building `recipebook` runs pack_catalog, which
# loads the embedded catalog (YAML, schemas, `extends`) and fails the build on an error, and
# `recipebook check --builtin` then checks every record (schema, derived figures, model and GPU
# references, active parameters from the architecture, layout rules). This script only writes.

def default_build_dir(root):
    """The first configured build folder among the presets' (ci, release, dev), or None."""
    for preset in ("ci", "release", "dev"):
        d = os.path.join(root, "build", preset)
        if os.path.exists(os.path.join(d, "CMakeCache.txt")):
            return d
    return None


def check(root, build_dir):
    """Rebuild recipebook in `build_dir` (embedding the catalog as written) and run
    `recipebook check --builtin --summary`; its exit code (0: no errors)."""
    import subprocess
    if build_dir is None:
        build_dir = default_build_dir(root)
    if build_dir is None:
        print("ERROR no configured build folder under build/: run `cmake --preset ci` (or pass --build DIR)")
        return 2
    build = ["cmake", "--build", build_dir, "--target", "recipebook"]
    print("$ " + " ".join(build))
    if subprocess.call(build, cwd=root, stdout=subprocess.DEVNULL) != 0:
        print("ERROR the build failed: the catalog does not load (pack_catalog says why above)")
        return 1
    cmd = [os.path.join(build_dir, "recipebook"), "check", "--builtin", "--summary"]
    print("$ " + " ".join(cmd))
    return subprocess.call(cmd, cwd=root)


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(root, "..", "shared", "data"),
                    help="folder with the reference CSVs (default: ../shared/data from the repo root)")
    ap.add_argument("--check", action="store_true", help="only check the catalog (no writes)")
    ap.add_argument("--build", metavar="DIR",
                    help="build folder whose recipebook checks the catalog (default: build/ci, else build/release, "
                         "else build/dev)")
    ap.add_argument("--accept-findings", metavar="JSON",
                    help="write scripts/known_issues.tsv from `recipebook check --builtin --json` output, then "
                         "regenerate")
    args = ap.parse_args(argv)
    if args.accept_findings:
        accept_findings(args.accept_findings)
    if not args.check:
        generate(root, os.path.abspath(args.data))
    return check(root, os.path.abspath(args.build) if args.build else None)


if __name__ == "__main__":
    sys.exit(main())
