"""TensorBoard demo runs for `scripts/make_demo_data` (our TfeventsWriter only: `pip install .` is enough).

What LLM jobs on Ascend write, so every TensorBoard page has data: two Megatron / MindSpeed-LLM-like runs that
differ in five arguments (one text tag per argument, ` vs samples` twins with the spaces kept), a MindFormers-like
run (each top-level config key as `str(dict)`, `_vs_samples` twins, an `add_scalars` expert-load group), and a
run per other kind: PR curves, audio, an embedding (with metadata and a sprite), hparams sessions, a custom
scalars layout, a mesh and markdown notes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

BASE_TIME = 1_790_100_000
HOST = "demo"
# the runs written (train_ids without "./"): add_hparams sessions are runs of their own
RUNS = ("tb_megatron_llama2_run_a", "tb_megatron_llama2_run_b", "tb_mindformers_mixtral", "tb_pr_curves", "tb_audio",
        "tb_embedding", "tb_hparams/session_0", "tb_hparams/session_1", "tb_hparams/session_2", "tb_hparams/session_3",
        "tb_hparams", "tb_custom_scalars", "tb_mesh", "tb_notes")
MEGATRON_ARGS: dict[str, Any] = {
    "num_layers": 32, "hidden_size": 4096, "ffn_hidden_size": 11008, "num_attention_heads": 32,
    "seq_length": 4096, "max_position_embeddings": 4096, "position_embedding_type": "rope",
    "normalization": "RMSNorm", "swiglu": True, "untie_embeddings_and_output_weights": True,
    "tensor_model_parallel_size": 2, "pipeline_model_parallel_size": 4, "sequence_parallel": True,
    "use_distributed_optimizer": True, "micro_batch_size": 1, "global_batch_size": 64, "train_iters": 300,
    "lr": 0.0003, "min_lr": 3e-05, "lr_decay_style": "cosine", "lr_warmup_iters": 20, "weight_decay": 0.1,
    "clip_grad": 1.0, "adam_beta1": 0.9, "adam_beta2": 0.95, "bf16": True, "fp16": False, "seed": 1234,
    "use_flash_attn": True, "recompute_granularity": "full", "recompute_method": "uniform",
    "data_path": ["/data/enwiki/llama2_text_document"], "split": "949,50,1", "tokenizer_type": "Llama2Tokenizer",
    "save_interval": 100, "eval_interval": 50, "eval_iters": 10, "log_interval": 1, "jit_compile": False,
}
RUN_B_CHANGES: dict[str, Any] = {"lr": 0.00015, "seed": 42, "micro_batch_size": 2}
MINDFORMERS_CONFIG: dict[str, Any] = {
    "seed": 0, "run_mode": "train", "use_parallel": True, "output_dir": "./output",
    "trainer": {"type": "CausalLanguageModelingTrainer", "model_name": "mixtral_8x7b"},
    "runner_config": {"epochs": 1, "batch_size": 4, "sink_mode": True, "sink_size": 1,
                      "gradient_accumulation_steps": 8},
    "optimizer": {"type": "AdamW", "betas": [0.9, 0.95], "eps": 1e-08, "weight_decay": 0.1},
    "lr_schedule": {"type": "CosineWithWarmUpLR", "learning_rate": 0.0001, "lr_end": 1e-05, "warmup_steps": 30},
    "parallel_config": {"data_parallel": 2, "model_parallel": 1, "pipeline_stage": 1, "expert_parallel": 2,
                        "micro_batch_num": 1, "vocab_emb_dp": True},
    "model": {"model_config": {"type": "LlamaConfig", "seq_length": 4096, "hidden_size": 4096, "num_layers": 32,
                               "num_heads": 32, "n_kv_heads": 8, "vocab_size": 32000, "rms_norm_eps": 1e-05,
                               "compute_dtype": "bfloat16", "use_flash_attention": True},
              "arch": {"type": "LlamaForCausalLM"}},
    "moe_config": {"expert_num": 8, "capacity_factor": 1.1, "aux_loss_factor": 0.05, "num_experts_chosen": 2},
    "callbacks": [{"type": "MFLossMonitor"}, {"type": "CheckpointMonitor", "prefix": "mixtral",
                                             "save_checkpoint_steps": 100}],
    "context": {"mode": 0, "device_target": "Ascend", "max_device_memory": "58GB", "jit_config": {"jit_level": "O1"}},
}
NOTES = ("### Run notes\n\n| metric | value |\n|---|---:|\n| final loss | 2.31 |\n| tokens/s | 1,234,567 |\n\n"
         "```bash\nmsrun --worker_num=8 run_mindformer.py --config pretrain_mixtral-8x7b.yaml\n```\n\n"
         "Raw HTML is shown as text: <script>alert(1)</script> & <b>bold?</b>\n")


def write_tensorboard_demo(outdir: Path, seed: int = 0, steps: int = 300) -> list[str]:
    """Write the TensorBoard demo runs into `outdir`; returns their folder names (add_hparams sessions are runs of
    their own, listed as `<run>/<session>`)."""
    rng = np.random.default_rng(seed + 20)
    steps = max(steps, 20)
    runs = []
    for index, (name, changes, drop, add) in enumerate((
            ("tb_megatron_llama2_run_a", {}, (), {}),
            ("tb_megatron_llama2_run_b", RUN_B_CHANGES, ("jit_compile",), {"use_fused_swiglu": True}))):
        args = {k: v for k, v in {**MEGATRON_ARGS, **changes, **add}.items() if k not in drop}
        _megatron(outdir / name, args, rng, steps, BASE_TIME + index * 7200)
        runs.append(name)
    _mindformers(outdir / "tb_mindformers_mixtral", rng, steps, BASE_TIME + 3 * 3600)
    runs.append("tb_mindformers_mixtral")
    with TfeventsWriter(outdir / "tb_pr_curves", timestamp=BASE_TIME + 4 * 3600, host=HOST) as w:
        for step in range(5):
            for tag, separation in (("pr_curve/cat", 0.6), ("pr_curve/dog", 1.0)):
                labels = rng.random(400) < 0.35
                logits = rng.normal(0, 1, 400) + np.where(labels, 1, -1) * (separation + 0.4 * step) / 2
                w.add_pr_curve(tag, labels, 1 / (1 + np.exp(-logits)), step, num_thresholds=101,
                               wall_time=BASE_TIME + 4 * 3600 + 30.0 * (step + 1))
    runs.append("tb_pr_curves")
    with TfeventsWriter(outdir / "tb_audio", timestamp=BASE_TIME + 5 * 3600, host=HOST) as w:
        t = np.arange(16000) / 16000
        for step, (freq, amp) in enumerate(((440, 0.25), (660, 0.5), (880, 0.8))):
            w.add_audio("audio/tone", amp * np.sin(2 * np.pi * freq * t), step, sample_rate=16000)
    runs.append("tb_audio")
    _embedding(outdir / "tb_embedding", rng, BASE_TIME + 6 * 3600)
    runs.append("tb_embedding")
    with TfeventsWriter(outdir / "tb_hparams", timestamp=BASE_TIME + 7 * 3600, host=HOST) as w:
        for k, (lr, bs, opt) in enumerate(((1e-3, 32, "adam"), (1e-2, 64, "sgd"), (3e-4, 128, "adamw"),
                                           (3e-3, 64, "adamw"))):
            accuracy = 0.93 - 8 * abs(math.log10(lr) + 3) / 100 + bs / 10_000 + float(rng.normal(0, 0.005))
            session = w.add_hparams({"lr": lr, "batch_size": bs, "optimizer": opt, "warmup": k % 2 == 0},
                                    {"hparam/accuracy": accuracy, "hparam/loss": 1 - accuracy},
                                    name=f"session_{k}", wall_time=BASE_TIME + 7 * 3600 + 60 * (k + 1))
            runs.append(f"tb_hparams/{session}")
    runs.append("tb_hparams")
    with TfeventsWriter(outdir / "tb_custom_scalars", timestamp=BASE_TIME + 8 * 3600, host=HOST) as w:
        w.add_custom_scalars({"Training": {"Loss train vs valid": ("Multiline", ["loss/train", "loss/valid"]),
                                           "Validation accuracy band": ("Margin", ["accuracy/valid", "accuracy/lower",
                                                                                   "accuracy/upper"])},
                              "By regex": {"All accuracy": ("Multiline", ["accuracy/.*"])}})
        for step in range(60):
            acc = 0.95 - 0.85 * math.exp(-step / 15) + float(rng.normal(0, 0.01))
            for tag, value in (("loss/train", 2.3 * math.exp(-step / 12) + 0.2), ("loss/valid", 2.3 * math.exp(
                    -step / 14) + 0.35), ("accuracy/valid", acc), ("accuracy/lower", acc - 0.04),
                               ("accuracy/upper", acc + 0.03)):
                w.add_scalar(tag, value + float(rng.normal(0, 0.01)), step)
    runs.append("tb_custom_scalars")
    with TfeventsWriter(outdir / "tb_mesh", timestamp=BASE_TIME + 9 * 3600, host=HOST) as w:
        cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float32)
        faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                 [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
        colors = (cube + 1) * 127.5
        for step, scale in enumerate((1.0, 1.5)):
            w.add_mesh("cube", cube * scale, step, faces=faces, colors=colors,
                       config={"camera": {"cls": "PerspectiveCamera", "fov": 75}})
    runs.append("tb_mesh")
    with TfeventsWriter(outdir / "tb_notes", timestamp=BASE_TIME + 10 * 3600, host=HOST) as w:
        w.add_text("notes/summary", NOTES, 0)
        w.add_text("notes/plain", "第 1 步：训练开始 ✓\nline two has <angle brackets> & an ampersand\n", 1)
    runs.append("tb_notes")
    assert tuple(runs) == RUNS, runs
    return runs


def _megatron(run: Path, args: dict[str, Any], rng: np.random.Generator, steps: int, t0: int) -> None:
    gbs = int(args["global_batch_size"])
    with TfeventsWriter(run, timestamp=t0, host=HOST) as w:
        for name, value in args.items():  # Megatron's write_args_to_tensorboard: one text tag per argument
            w.add_text(name, str(value), 0, wall_time=t0 + 30)
        wall = t0 + 60.0
        lr_max = float(args["lr"])
        for it in range(1, steps + 1):
            took = 27.4 if it == 1 else 5.9 + float(rng.normal(0, 0.05))
            wall += took
            loss = 2.1 + 8.3 * math.exp(-it / 40) + float(rng.normal(0, 0.03)) + 0.2 * (lr_max < 3e-4)
            lr = lr_max * min(1.0, it / 20) * 0.5 * (1 + math.cos(math.pi * it / steps))
            for tag, value in (("lm loss", loss), ("learning-rate", lr), ("grad-norm", 3.5 * math.exp(-it / 60) + 0.6),
                               ("batch-size", gbs)):
                w.add_scalar(tag, value, it, wall)
                w.add_scalar(tag + " vs samples", value, it * gbs, wall)
            w.add_scalar("iteration-time", took, it, wall)  # Megatron writes no twin for these two
            w.add_scalar("throughput", gbs * 4096 / took / 16, it, wall)


def _mindformers(run: Path, rng: np.random.Generator, steps: int, t0: int) -> None:
    gbs = 64
    with TfeventsWriter(run, timestamp=t0, host=HOST) as w:
        for k, (key, value) in enumerate(MINDFORMERS_CONFIG.items()):  # write_args_to_tensorboard: str(dict) per key
            w.add_text(key, str(value), 1, wall_time=t0 + 1.5 + 0.002 * k)
        wall = t0 + 210.0
        bias = rng.dirichlet(np.full(8, 3.0))
        for it in range(1, steps + 1):
            wall += 186.4 if it == 1 else 4.85 + float(rng.normal(0, 0.05))
            loss = 3.05 + 7.6 * math.exp(-it / 30) + float(rng.normal(0, 0.02))
            for tag, value in (("loss", loss), ("learning-rate", 1e-4 * min(1.0, it / 30)), ("grad-norm",
                               6.9 * math.exp(-it / 25) + 0.62), ("throughput", gbs / 4.85 / 2)):
                w.add_scalar(tag, value, it, wall)
                w.add_scalar(tag + "_vs_samples", value, it * gbs, wall)  # tensorboardX rewrites " vs " as "_vs_"
            if it % 5 == 0:
                load = rng.dirichlet(bias * 8 * (4 + 60 * it / steps))
                w.add_scalars("expert_load/layer_3", {f"ep_{j}": float(load[j]) for j in range(8)}, it, wall + 0.01)


def _embedding(run: Path, rng: np.random.Generator, t0: int) -> None:
    classes = ("noun", "verb", "adjective", "adverb")
    centers = rng.normal(0, 3, (len(classes), 16))
    labels = rng.integers(0, len(classes), 300)
    points = centers[labels] + rng.normal(0, 1, (300, 16))
    palette = (rng.random((len(classes), 3)) * 255).astype(np.uint8)
    thumbs = np.broadcast_to(palette[labels][:, None, None, :], (300, 16, 16, 3))
    with TfeventsWriter(run, timestamp=t0, host=HOST) as w:
        w.add_embedding(points, "token_embedding", step=0,
                        metadata=[(classes[c], "train" if j % 5 else "valid") for j, c in enumerate(labels)],
                        metadata_header=("label", "split"), sprite=thumbs)
