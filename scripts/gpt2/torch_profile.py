"""torch_profile.py lists where PyTorch eager spends GPT-2 small's
prefill of 8x1024 tokens on the GPU (float32, TF32 off, random weights):
torch.profiler's CUDA kernels, by total device time, for one forward
pass after a warm-up.

  python3 scripts/gpt2/torch_profile.py [BATCH]
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).eval().cuda()
    ids = torch.randint(0, 50257, (batch, 1024), device="cuda")
    with torch.no_grad():
        for _ in range(2):
            model(ids)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model(ids)
            torch.cuda.synchronize()
    events = [e for e in prof.key_averages() if e.device_time_total > 0]
    events.sort(key=lambda e: -e.device_time_total)
    total = sum(e.device_time_total for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"PyTorch {batch}x1024 forward: {total / 1e3:.2f} ms of CUDA kernels")
    for e in events[:25]:
        print(f"{e.device_time_total / 1e3:9.3f} ms {e.count:5d}x  {e.key[:110]}")


if __name__ == "__main__":
    main()
