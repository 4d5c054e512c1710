"""devices.py - device selection as PyTorch's CUDA semantics page (the
seeds) shows it, on two GPUs (issue 21, tests/gpu/nccl.sh): tensors made on
cuda:0, inside `with torch.cuda.device(1)`, with .cuda() and .to(device=),
.to('cuda:1') across devices and back, torch.cuda.set_device(1).  Correct
code: every operation must be recorded on the device it ran on
(devices_check.py), and the report has no error."""
import torch

assert torch.cuda.device_count() >= 2, "two GPUs needed"
cuda = torch.device("cuda")  # the current device
cuda0 = torch.device("cuda:0")
x = torch.tensor([1.0, 2.0], device=cuda0)
y = torch.tensor([1.0, 2.0]).cuda()
with torch.cuda.device(1):
    a = torch.tensor([1.0, 2.0], device=cuda)  # on GPU 1
    b = torch.tensor([1.0, 2.0]).cuda()  # on GPU 1
    b2 = torch.tensor([1.0, 2.0]).to(device=cuda)  # on GPU 1
    c = a + b + b2  # on GPU 1
    z = x + y  # on GPU 0: operations run where their tensors are
t = torch.randn(1 << 20, device=cuda0)
u = t.to("cuda:1")  # a copy between the devices
v = (u * 2).to(cuda0)  # and back
torch.cuda.set_device(1)
w = torch.ones(1 << 20, device="cuda") + u  # on GPU 1
torch.cuda.synchronize(0)
torch.cuda.synchronize(1)
print("devices: c on %s, z on %s, v on %s, w on %s, sum %.1f" %
      (c.device, z.device, v.device, w.device, float(v.sum().item() + w.sum().item())))
