#!/usr/bin/env python3
"""Device-to-device copy bandwidth of torch's y.copy_(x), the peer figure for
`rocm-bench bandwidth --device cuda:N`. Same method: 3 warm-ups, then the mean of
--iters copies timed with CUDA events; GB/s counts bytes read plus written."""
import argparse

import torch

p = argparse.ArgumentParser()
p.add_argument("--bytes", type=int, default=1 << 30)
p.add_argument("--iters", type=int, default=20)
p.add_argument("--device", default="cuda:0")
a = p.parse_args()

x = torch.randint(0, 255, (a.bytes,), dtype=torch.uint8, device=a.device)
y = torch.empty_like(x)
for _ in range(3):
    y.copy_(x)
torch.cuda.synchronize()
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(a.iters):
    y.copy_(x)
end.record()
end.synchronize()
ms = start.elapsed_time(end) / a.iters
assert torch.equal(x, y)
print(f"torch y.copy_(x) {a.bytes} bytes: {ms:.4f} ms, {2 * a.bytes / (ms * 1e-3) / 1e9:.1f} GB/s "
      f"(read+write) on {torch.cuda.get_device_name(a.device)}")
