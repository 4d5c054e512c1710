# tests/sim/local.mk
