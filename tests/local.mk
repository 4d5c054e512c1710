# tests/local.mk
