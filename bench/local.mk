# bench/local.mk
