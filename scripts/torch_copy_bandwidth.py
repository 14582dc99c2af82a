#!/usr/bin/env python3
"""Copy bandwidth of torch, the peer figures for `rocm-bench bandwidth --device cuda:N`.

Device-to-device: y.copy_(x), GB/s counting bytes read plus written. With --host, also
host-to-device and device-to-host from pageable and from pinned (page-locked) memory,
GB/s counting the bytes moved once. Same method as rocm-bench: 3 warm-ups, then the
mean of --iters copies; device copies and pinned copies (non_blocking) are timed with
CUDA events, pageable copies (which block the host) on the host clock."""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--bytes", type=int, default=1 << 30)
p.add_argument("--iters", type=int, default=20)
p.add_argument("--device", default="cuda:0")
p.add_argument("--host", action="store_true", help="also time host<->device copies")
a = p.parse_args()
name = torch.cuda.get_device_name(a.device)


def event_timed(f):
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(a.iters):
        f()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / a.iters


def host_timed(f):
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(a.iters):
        f()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3 / a.iters


x = torch.randint(0, 255, (a.bytes,), dtype=torch.uint8, device=a.device)
y = torch.empty_like(x)
ms = event_timed(lambda: y.copy_(x))
assert torch.equal(x, y)
print(f"torch y.copy_(x) {a.bytes} bytes: {ms:.4f} ms, {2 * a.bytes / (ms * 1e-3) / 1e9:.1f} GB/s "
      f"(read+write) on {name}")

if a.host:
    for kind in ("pageable", "pinned"):
        h = torch.randint(0, 255, (a.bytes,), dtype=torch.uint8)
        if kind == "pinned":
            h = h.pin_memory()
        back = torch.empty_like(h)
        if kind == "pinned":
            back = back.pin_memory()
            h2d = event_timed(lambda: y.copy_(h, non_blocking=True))
            d2h = event_timed(lambda: back.copy_(y, non_blocking=True))
        else:
            h2d = host_timed(lambda: y.copy_(h))
            d2h = host_timed(lambda: back.copy_(y))
        torch.cuda.synchronize()
        assert torch.equal(back, h)
        for direction, ms in (("host-to-device", h2d), ("device-to-host", d2h)):
            print(f"torch {direction} {kind} {a.bytes} bytes: {ms:.4f} ms, "
                  f"{a.bytes / (ms * 1e-3) / 1e9:.1f} GB/s on {name}")
