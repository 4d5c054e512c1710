# tests/packaging/local.mk - the pip package (pyproject.toml,
# python/cudalens_build.py): wheel.test builds it, installs it into a venv and
# records the demo app with the installed tools.
TESTS += $(PACKAGING_TESTS)
EXTRA_DIST += $(PACKAGING_TESTS)
