#!/usr/bin/env python3
# validate_json.py - validate JSON documents against a JSON Schema (its
# draft taken from its "$schema"), for tests/recordings/schema.test and
# sarif.test.  Usage: validate_json.py SCHEMA FILE...
# Exit 0 all valid, 1 a document is invalid, 77 (skip) when the jsonschema
# module is missing, 99 on a bad schema or unreadable file.
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: the python3 module jsonschema is missing"
          " (Debian: apt-get install python3-jsonschema)")
    sys.exit(77)


def main():
    if len(sys.argv) < 3:
        print("usage: validate_json.py SCHEMA FILE...", file=sys.stderr)
        return 99
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print("ERROR: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 99
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL: %s: not JSON: %s" % (path, e), file=sys.stderr)
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print("FAIL: %s: at /%s: %s" % (
                path, "/".join(str(p) for p in e.path), e.message[:300]),
                file=sys.stderr)
        if errors:
            bad += 1
        else:
            print("ok: %s (%s)" % (path, cls.__name__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
