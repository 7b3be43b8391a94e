"""torch_reference.py makes GPT-2 small with random weights (fixed seed),
saves it as Hugging Face does (model.safetensors, config.json), and
writes PyTorch's answers and timings for gour's gpt2 command to compare
against, into DIR:

  ref_ids.bin     int32 token ids of the correctness prompt (1 x PROMPT)
  ref_logits.bin  float32 logits of every position of that prompt
  ref_greedy.bin  int32 greedy continuation of GREEDY tokens after it
  torch.json      PyTorch eager's times: prefill 1x1024 and 8x1024 (every
                  position's logits, as the model's forward gives them),
                  decode per token through transformers' generate after a
                  128-token prompt; the same of the model in float16 and
                  bfloat16 (model.to(dtype)), keys ending _float16 and
                  _bfloat16
  ref_logits_float16.bin, ref_logits_bfloat16.bin
                  the correctness prompt's logits of those half models

  python3 scripts/gpt2/torch_reference.py DIR [HALF...]

HALF names the half types timed (float16, bfloat16; both by default;
"none" for neither).

TF32 is off. Nothing is downloaded: the model is GPT2LMHeadModel(GPT2Config()).
"""
import copy
import json
import os
import sys
import time

import numpy as np
import torch
from transformers import GPT2Config, GPT2LMHeadModel

PROMPT, GREEDY, DECODE_PROMPT, DECODE_STEPS = 64, 64, 128, 128


def median_ms(fn, runs):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times)), times


def timings(model, ids, suffix, res):
    """Times model's prefill and decode into res, keys ending in suffix."""
    with torch.no_grad():
        for b in (1, 8):
            x = ids[:b].cuda()
            ms, _ = median_ms(lambda: model(x).logits, 10 if b == 1 else 5)
            res[f"prefill_{b}x1024_ms{suffix}"] = ms
            print(f"PyTorch{suffix} prefill {b}x1024: {ms:.2f} ms, {b * 1024 / ms * 1e3:.0f} tokens/s", flush=True)
        p = ids[:1, :DECODE_PROMPT].cuda()
        mask = torch.ones_like(p)

        def decode(steps):
            return model.generate(p, attention_mask=mask, do_sample=False, max_new_tokens=steps,
                                  min_new_tokens=steps, pad_token_id=0)

        # The prompt's prefill is taken out: generate DECODE_STEPS tokens
        # and 1 token, the difference over DECODE_STEPS-1 steps.
        full, _ = median_ms(lambda: decode(DECODE_STEPS), 3)
        one, _ = median_ms(lambda: decode(1), 5)
        per = (full - one) / (DECODE_STEPS - 1)
        res[f"decode_ms_per_token{suffix}"] = per
        print(f"PyTorch{suffix} decode after {DECODE_PROMPT}: {per:.3f} ms/token, {1e3 / per:.0f} tokens/s", flush=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    cfg = GPT2Config()
    model = GPT2LMHeadModel(cfg).eval()
    model.save_pretrained(out, safe_serialization=True)
    model = model.cuda()
    print("attention implementation:", model.config._attn_implementation)

    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), generator=gen)
    ids.numpy().astype("<i4").tofile(os.path.join(out, "bench_ids.bin"))
    prompt = ids[:1, :PROMPT].cuda()
    with torch.no_grad():
        logits = model(prompt).logits[0].float().cpu().numpy()
        greedy = model.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                                max_new_tokens=GREEDY, min_new_tokens=GREEDY, pad_token_id=0)
    prompt.cpu().numpy().astype("<i4").tofile(os.path.join(out, "ref_ids.bin"))
    logits.astype("<f4").tofile(os.path.join(out, "ref_logits.bin"))
    greedy[0, PROMPT:].cpu().numpy().astype("<i4").tofile(os.path.join(out, "ref_greedy.bin"))

    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "attn_implementation": model.config._attn_implementation}
    timings(model, ids, "", res)
    halves = sys.argv[2:] or ["float16", "bfloat16"]
    for name, dt in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        if name not in halves:
            continue
        half = copy.deepcopy(model).to(dt)
        with torch.no_grad():
            half(prompt).logits[0].float().cpu().numpy().astype("<f4").tofile(
                os.path.join(out, f"ref_logits_{name}.bin"))
        timings(half, ids, "_" + name, res)
        del half
        torch.cuda.empty_cache()
    with open(os.path.join(out, "torch.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
