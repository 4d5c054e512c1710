# train_prefetch.py - a small but real training loop: a CNN on synthetic
# images (no network, no datasets), DataLoader(pin_memory=True) with
# workers, non_blocking host-to-device copies issued on a side stream one
# batch ahead (the usual prefetcher), made safe with wait_stream and
# record_stream.  cudalens must report no stream-race.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


class Prefetcher:
    """Copies the next batch on a side stream while the current one trains."""

    def __init__(self, loader, device):
        self.it = iter(loader)
        self.device = device
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        try:
            x, y = next(self.it)
        except StopIteration:
            self.batch = None
            return
        with torch.cuda.stream(self.stream):
            self.batch = (x.to(self.device, non_blocking=True),
                          y.to(self.device, non_blocking=True))

    def __iter__(self):
        return self

    def __next__(self):
        cur = torch.cuda.current_stream()
        cur.wait_stream(self.stream)
        if self.batch is None:
            raise StopIteration
        x, y = self.batch
        x.record_stream(cur)
        y.record_stream(cur)
        self.preload()
        return x, y


def main():
    torch.manual_seed(0)
    device = torch.device("cuda")
    n = 2048
    data = TensorDataset(torch.randn(n, 3, 32, 32), torch.randint(0, 10, (n,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=2,
                        pin_memory=True)
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(2):
        total = 0.0
        for x, y in Prefetcher(loader, device):
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total:.3f}")
    torch.cuda.synchronize()
    print("train_prefetch: done")


if __name__ == "__main__":
    main()
