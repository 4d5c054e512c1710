"""`python -m cudalens ARGS...` is `cudalens ARGS...`."""
from cudalens import launcher

launcher()
