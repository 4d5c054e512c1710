#!/bin/sh
# autogen.sh - generates configure and Makefile.in from a fresh clone.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
