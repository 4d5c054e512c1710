"""torch_models.py - real PyTorch training loops for the GPU checks of
cudalens (issue 8: correct programs must give no error finding).

    python3 torch_models.py MODEL [STEPS]

MODEL is one of:
  resnet18          torchvision resnet18, SGD, batch 32 of 3x224x224 (cuDNN),
                    copied from pageable memory each step
  resnet18-loader   the same fed by DataLoader(pin_memory=True, num_workers=2)
                    with non_blocking copies
  transformer       nn.TransformerEncoder (4 layers, d=256), AdamW
  gpt2              GPT-2 small (124M) of Hugging Face transformers, random
                    weights (no download), batch 8 of 256 tokens, bf16
                    autocast, AdamW
  vit               ViT-B/16 of timm, random weights, batch 32 of 3x224x224,
                    AdamW
  bf16              resnet18 under torch.autocast(dtype=torch.bfloat16)
  cudagraph         a training step of a small MLP captured in a
                    torch.cuda.CUDAGraph and replayed
  compile           a small MLP trained through torch.compile
  compile-graphs    the same with mode="reduce-overhead": Inductor records
                    the compiled forward and backward into CUDA graphs
                    (cudagraph trees) and replays them, with its own
                    memory pool
Prints one line, `MODEL: ok STEPS steps`, and exits 0; every model is a
correct program (all its synchronization is PyTorch's own).

bench/torch_train.py times the same loops: each calls on_step(i) after
step i (a no-op here).
"""
import sys

import torch
import torch.nn as nn

# called with the step's index after each training step (bench/torch_train.py
# starts its clock there)
on_step = lambda i: None


def resnet(steps, autocast=False, loader=False):
    import torchvision
    model = torchvision.models.resnet18(num_classes=10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    if loader:
        # 16 batches of images drawn again and again (a dataset of 32 * steps
        # images would be 5.8 GB at 300 steps)
        data = torch.utils.data.TensorDataset(torch.randn(32 * 16, 3, 224, 224),
                                              torch.randint(0, 10, (32 * 16,)))
        sampler = torch.utils.data.RandomSampler(data, replacement=True,
                                                 num_samples=32 * steps)
        batches = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler,
                                              pin_memory=True, num_workers=2)
    else:
        # 16 batches in pageable memory, each copied again when its turn comes
        # (making 300 would take longer than the steps)
        pool = [(torch.randn(32, 3, 224, 224), torch.randint(0, 10, (32,)))
                for _ in range(16)]
        batches = (pool[i % 16] for i in range(steps))
    for i, (x, y) in enumerate(batches):
        x = x.cuda(non_blocking=loader)
        y = y.cuda(non_blocking=loader)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
            loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        on_step(i)
    return loss.item()


def transformer(steps):
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024,
                                       batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, num_layers=4),
                          nn.Linear(256, 1000)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    lossf = nn.CrossEntropyLoss()
    for i in range(steps):
        x = torch.randn(16, 128, 256, device="cuda")
        y = torch.randint(0, 1000, (16, 128), device="cuda")
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(x).reshape(-1, 1000), y.reshape(-1))
        loss.backward()
        opt.step()
        on_step(i)
    return loss.item()


def gpt2(steps):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config()
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for i in range(steps):
        x = torch.randint(0, cfg.vocab_size, (8, 256), device="cuda")
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=x, labels=x).loss
        loss.backward()
        opt.step()
        on_step(i)
    return loss.item()


def vit(steps):
    import timm
    model = timm.create_model("vit_base_patch16_224", pretrained=False,
                              num_classes=10).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    lossf = nn.CrossEntropyLoss()
    for i in range(steps):
        x = torch.randn(32, 3, 224, 224, device="cuda")
        y = torch.randint(0, 10, (32,), device="cuda")
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        on_step(i)
    return loss.item()


def mlp():
    return nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).cuda()


def cudagraph(steps):
    # the recipe of the "CUDA Graphs" section of PyTorch's CUDA semantics
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    lossf = nn.CrossEntropyLoss()
    sx = torch.randn(64, 512, device="cuda")
    sy = torch.randint(0, 10, (64,), device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            lossf(model(sx), sy).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        sloss = lossf(model(sx), sy)
        sloss.backward()
        opt.step()
    for _ in range(steps):
        sx.copy_(torch.randn(64, 512, device="cuda"))
        sy.copy_(torch.randint(0, 10, (64,), device="cuda"))
        g.replay()
    return sloss.item()


def compiled(steps, mode=None):
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step_model = torch.compile(model, mode=mode)
    lossf = nn.CrossEntropyLoss()
    for _ in range(steps):
        x = torch.randn(64, 512, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        opt.zero_grad(set_to_none=True)
        loss = lossf(step_model(x), y)
        loss.backward()
        opt.step()
    return loss.item()


MODELS = {
    "resnet18": lambda n: resnet(n),
    "resnet18-loader": lambda n: resnet(n, loader=True),
    "transformer": transformer,
    "gpt2": gpt2,
    "vit": vit,
    "bf16": lambda n: resnet(n, autocast=True),
    "cudagraph": cudagraph,
    "compile": compiled,
    "compile-graphs": lambda n: compiled(n, mode="reduce-overhead"),
}

if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in MODELS:
        sys.exit("usage: torch_models.py {%s} [STEPS]" % ",".join(MODELS))
    torch.manual_seed(0)
    steps = int(sys.argv[2]) if len(sys.argv) == 3 else 10
    loss = MODELS[sys.argv[1]](steps)
    torch.cuda.synchronize()
    assert loss == loss, "loss is NaN"
    print("%s: ok %d steps" % (sys.argv[1], steps))
