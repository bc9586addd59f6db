#!/usr/bin/env python3
"""Writes the training-log fixtures of this folder (python3 make_logs.py; stdlib only).

The iteration line follows Megatron-LM's training_log() (megatron/training/training.py):
  ' [YYYY-MM-DD HH:MM:SS] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per
   iteration (ms): {:.1f} | throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} |
   global batch size: {:5d} | lm loss: {:.6E} | loss scale: {:.1f} | grad norm: {:.3f} |
   number of skipped iterations: {:3d} | number of nan iterations: {:3d} |'
The step times below are the figures the tests in src/recipebook/catalog/training_log_test.cpp
expect; change both together.
"""
import datetime
import os

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = datetime.datetime(2026, 10, 18, 12, 0, 0)


def line(it, total, ms, gbs, loss=None, tflops=None, nan=0, when=None, consumed=None):
    s = ""
    if when is not None:
        s += " [" + when.strftime("%Y-%m-%d %H:%M:%S") + "]"
    s += " iteration {:8d}/{:8d} |".format(it, total)
    s += " consumed samples: {:12d} |".format(consumed if consumed is not None else it * gbs)
    s += " elapsed time per iteration (ms): {:.1f} |".format(ms)
    if tflops is not None:
        s += " throughput per GPU (TFLOP/s/GPU): {:.1f} |".format(tflops)
    s += " learning rate: {:.6E} |".format(1e-5)
    s += " global batch size: {:5d} |".format(gbs)
    if loss is not None:
        s += " lm loss: {} |".format(loss if isinstance(loss, str) else "{:.6E}".format(loss))
    s += " loss scale: {:.1f} |".format(1.0)
    s += " grad norm: {:.3f} |".format(1.234)
    s += " number of skipped iterations: {:3d} |".format(0)
    s += " number of nan iterations: {:3d} |".format(nan)
    return s


def args_dump(values):
    out = ["------------------------ arguments ------------------------"]
    for k in sorted(values):
        out.append("  {} {} {}".format(k, "." * (48 - len(k)), values[k]))
    out.append("-------------------- end of arguments ---------------------")
    return out


def write(name, lines, final_newline=True):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + ("\n" if final_newline else ""))


# Megatron-LM, log interval 1: three warm-up iterations, then 27 steady ones alternating 7600/7700 ms.
NORMAL_MS = [25000.0, 9800.0, 8600.0] + [7600.0 if i % 2 == 0 else 7700.0 for i in range(27)]


def normal():
    out = ["using world size: 8, data-parallel size: 8, context-parallel size: 1",
           "> building GPT model ..."]
    out += args_dump({"seq_length": 4096, "world_size": 8, "global_batch_size": 128, "micro_batch_size": 1,
                      "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1, "log_interval": 1,
                      "train_iters": 30})
    out.append("[after training is done] datetime: 2026-10-18 11:59:58")
    t = T0
    for i, ms in enumerate(NORMAL_MS, start=1):
        t += datetime.timedelta(milliseconds=ms)
        out.append(line(i, 30, ms, 128, loss=10.5 - 0.1 * (i - 1), tflops=412.3 * 7650.0 / ms, when=t))
    return out


# Megatron-Bridge, log interval 5, global batch 256: the first interval holds the warm-up.
BRIDGE_MS = [12000.0, 5000.0, 5100.0, 4900.0, 5000.0, 5050.0, 4950.0, 5000.0, 5100.0, 4900.0]


def bridge():
    out = ["[NeMo I 2026-10-18 11:58:00] Setting up the training loop"]
    t = T0
    for k, ms in enumerate(BRIDGE_MS, start=1):
        it = 5 * k
        t += datetime.timedelta(milliseconds=5 * ms)
        out.append(line(it, 50, ms, 256, loss=9.0 - 0.05 * it, tflops=380.0 * 5000.0 / ms, when=t))
        if k == 1:
            out.append("[Rank 0] (after 5 iterations) memory (GB) | allocated: 41.2 | max allocated: 60.1 |")
    return out


def truncated():
    out = []
    t = T0
    for i in range(1, 10):
        ms = 20000.0 if i == 1 else 7650.0
        t += datetime.timedelta(milliseconds=ms)
        out.append(line(i, 100, ms, 128, loss=10.0 - 0.1 * i, tflops=400.0, when=t))
    # Line 9 is cut inside its throughput field; a tenth line is cut inside its elapsed time.
    out[-1] = out[-1][:out[-1].index("throughput per GPU") + len("throughput per GPU (TFLOP/s/GPU): 4")]
    tenth = line(10, 100, 7650.0, 128, loss=9.0, tflops=400.0, when=t)
    out.append(tenth[:tenth.index("elapsed time per iteration (ms): ") + len("elapsed time per iteration (ms): 76")])
    return out


def interleaved():
    # torchrun's "[defaultN]:" prefixes; rank 7 (the last rank) logs iterations 1..12, rank 3
    # repeats iterations 1..10 with other times; their lines and other output interleave.
    out = []
    t = T0
    for i in range(1, 13):
        ms = 15000.0 if i == 1 else 6000.0 + (50.0 if i % 2 else -50.0)
        t += datetime.timedelta(milliseconds=ms)
        if i <= 10:
            out.append("[default3]:" + line(i, 12, 9999.0, 64, when=t))
        out.append("[default7]:" + line(i, 12, ms, 64, loss=8.0 - 0.1 * i, tflops=300.0, when=t))
        if i == 2:
            out.append("[default0]:[rank0]: NCCL INFO comm 0x5555 rank 0 nranks 8 - Init COMPLETE")
    return out


def nan_loss():
    out = []
    t = T0
    for i in range(1, 13):
        ms = 18000.0 if i == 1 else 7000.0
        t += datetime.timedelta(milliseconds=ms)
        if i == 7:  # Megatron prints no loss when its average is NaN and counts the iteration
            out.append(line(i, 12, ms, 32, loss=None, tflops=200.0, nan=1, when=t))
        elif i == 8:
            out.append(line(i, 12, ms, 32, loss="NAN", tflops=200.0, when=t))
        else:
            out.append(line(i, 12, ms, 32, loss=6.0 - 0.1 * i, tflops=200.0, when=t))
    return out


# Megatron-LM, 16 GPUs, global batch 128, sequence 8192, a Llama-3-8B shape (hidden 4096, 32
# layers): two warm-up iterations, then 18 steady ones alternating 7950/8050 ms. The logged TFLOP/s
# is Megatron's count for Llama-3-8B (51.5 GFLOP/token) x 8192 tokens/s/GPU at 8000 ms.
LLAMA8B_MS = [20000.0, 9500.0] + [7950.0 if i % 2 == 0 else 8050.0 for i in range(18)]


def megatron_run(world, dp, tp, pp, gbs, seq, hidden, layers, heads, step_ms, loss0, tflops_at, cp=1, vp=None):
    """A Megatron-LM run of the given shape: its world-size line, the argument dump, and one iteration
    line per step time, the logged TFLOP/s given by tflops_at(ms)."""
    out = ["using world size: {}, data-parallel size: {}, context-parallel size: {}, hierarchical context-parallel "
           "sizes: None, tensor-model-parallel size: {}, pipeline-model-parallel size: {}".format(world, dp, cp, tp, pp)]
    out += args_dump({"seq_length": seq, "world_size": world, "global_batch_size": gbs, "micro_batch_size": 1,
                      "hidden_size": hidden, "num_layers": layers, "num_attention_heads": heads,
                      "tensor_model_parallel_size": tp, "pipeline_model_parallel_size": pp,
                      "context_parallel_size": cp, "virtual_pipeline_model_parallel_size": vp, "log_interval": 1,
                      "train_iters": len(step_ms)})
    t = T0
    for i, ms in enumerate(step_ms, start=1):
        t += datetime.timedelta(milliseconds=ms)
        out.append(line(i, len(step_ms), ms, gbs, loss=loss0 - 0.1 * (i - 1), tflops=tflops_at(ms), when=t))
    return out


def llama8b_16gpu():
    return megatron_run(16, 4, 2, 2, 128, 8192, 4096, 32, 32, LLAMA8B_MS, 11.0, lambda ms: 421.6 * 8000.0 / ms)


# The README's first session: a sample log of llama3_70b_pretrain_64gpu_h100_bf16_config (64 H100,
# GBS 256, seq 8192, the recipe's TP 4 PP 4 VP 5 CP 2, so DP 2). Synthetic, like every log here:
# 36-37 s steps (about 900 tokens/s/GPU), TFLOP/s at the 449.2 GFLOP/token Megatron-Bridge publishes
# for this model and sequence.
LLAMA70B_MS = [61000.0, 39000.0, 37500.0] + [36400.0 if i % 2 == 0 else 36800.0 for i in range(17)]


def llama70b_64gpu():
    tokens_per_gpu_s = lambda ms: 256 * 8192 / 64 / (ms / 1000.0)
    return megatron_run(64, 2, 4, 4, 256, 8192, 8192, 80, 64, LLAMA70B_MS, 11.2,
                        lambda ms: 449.2e9 * tokens_per_gpu_s(ms) / 1e12, cp=2, vp=5)


def no_iterations():
    return ["> initializing torch distributed ...",
            "> building GPT model ...",
            "Traceback (most recent call last):",
            '  File "pretrain_gpt.py", line 312, in <module>',
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB."]


if __name__ == "__main__":
    write("megatron_normal.log", normal())
    write("bridge_interval5.log", bridge())
    write("truncated.log", truncated(), final_newline=False)  # cut mid-line, as a killed job leaves it
    write("interleaved_ranks.log", interleaved())
    write("nan_loss.log", nan_loss())
    write("no_iterations.log", no_iterations())
    write("llama8b_16gpu.log", llama8b_16gpu())
    write("llama3_70b_64gpu.log", llama70b_64gpu())
