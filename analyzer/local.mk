# analyzer/local.mk
