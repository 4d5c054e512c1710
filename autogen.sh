#!/bin/sh
# autogen.sh - generates configure and Makefile.in from a fresh clone.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
sh tests/collect.sh # tests/tests.mk: the test scripts of each folder
autoreconf -fi
