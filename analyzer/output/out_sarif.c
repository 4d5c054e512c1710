/* out_sarif.c - the findings as a SARIF 2.1.0 log (--format=sarif), for
 * code-scanning services: one run of the tool "cudalens-report" whose
 * rules are the registry's kinds (checks.def: id = kind, title, reference,
 * default level from the kind's severity), and one result per finding with
 * its level, message, location, related locations and fingerprint
 * (partialFingerprints); then the findings suppressions took out, as
 * results with a suppression of kind "external" whose justification names
 * the file and line (or --disable) that took it.  With --source-root,
 * files under the root are relative URIs with uriBaseId SRCROOT, which the
 * log leaves undefined (originalUriBaseIds) so that logs made from two
 * checkouts are the same: the consumer knows its checkout.  The summary is
 * not part of it.  Checked against the official schema
 * (tests/recordings/sarif-schema-2.1.0.json) by
 * tests/recordings/sarif.test. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/output.h"
#include "util.h"

/* the severity as a SARIF level: error, warning, note */
static const char *level(enum severity s)
{
  return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

/* PATH as a URI reference: an absolute path as a file: URI, a relative one
 * as a relative reference; every byte other than RFC 3986's unreserved
 * characters and '/' percent-encoded.  malloc'd. */
static char *sarif_uri(const char *path)
{
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(path);
  char *out = xmalloc(n * 3 + 16), *o = out;
  if (path[0] == '/') {
    memcpy(o, "file://", 7);
    o += 7;
  }
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
        (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
      *o++ = (char)*p;
    } else {
      *o++ = '%';
      *o++ = hex[*p >> 4];
      *o++ = hex[*p & 15];
    }
  }
  *o = 0;
  return out;
}

static void artifact(struct json *j, const char *path, const char *root)
{
  char *uri = sarif_uri(path);
  json_key(j, "artifactLocation");
  json_begin_object(j);
  json_kv_string(j, "uri", uri);
  if (root && path[0] != '/')
    json_kv_string(j, "uriBaseId", "SRCROOT");
  json_end_object(j);
  free(uri);
}

/* the body of a SARIF location object for LOC: a physical location (the
 * file and line, or the object for a place without a file, its offset in
 * the property bag), and the function as a logical location */
static void location_body(struct json *j, const struct location *loc,
                          const char *root)
{
  const char *path = loc->file ? loc->file : loc->module;
  if (path) {
    json_key(j, "physicalLocation");
    json_begin_object(j);
    artifact(j, path, loc->file ? root : NULL);
    if (loc->file && loc->line > 0) {
      json_key(j, "region");
      json_begin_object(j);
      json_kv_int(j, "startLine", loc->line);
      json_end_object(j);
    }
    json_end_object(j);
  }
  if (loc->function) {
    json_key(j, "logicalLocations");
    json_begin_array(j);
    json_begin_object(j);
    json_kv_string(j, "name", loc->function);
    json_kv_string(j, "kind", "function");
    json_end_object(j);
    json_end_array(j);
  }
  if (!loc->file && loc->module) {
    char b[32];
    json_key(j, "properties");
    json_begin_object(j);
    json_kv_string(j, "offset", fmt_hex(b, sizeof b, (int64_t)loc->offset));
    json_end_object(j);
  }
}

/* a related note with a place of its own (a file or an object) */
static int placed(const struct location *loc)
{
  return loc->file || loc->module;
}

static int known(const struct location *loc)
{
  return loc->file || loc->module || loc->function;
}

static void rules(struct json *j)
{
  json_key(j, "rules");
  json_begin_array(j);
  for (int id = 0; id < CHECK_COUNT; id++) {
    const struct check_info *ci = check_info((enum check_id)id);
    char *help = xasprintf("%s. Rests on: %s. (cudalens-report --explain=%s;"
                           " cudalens-report(1), FINDINGS)",
                           ci->title, ci->reference, ci->kind);
    json_begin_object(j);
    json_kv_string(j, "id", ci->kind);
    json_key(j, "shortDescription");
    json_begin_object(j);
    json_kv_string(j, "text", ci->title);
    json_end_object(j);
    json_key(j, "fullDescription"); /* --explain's long text */
    json_begin_object(j);
    json_kv_string(j, "text", ci->help);
    json_end_object(j);
    json_key(j, "help");
    json_begin_object(j);
    json_kv_string(j, "text", help);
    json_end_object(j);
    json_key(j, "defaultConfiguration");
    json_begin_object(j);
    json_kv_string(j, "level", level(ci->severity));
    json_end_object(j);
    json_key(j, "properties");
    json_begin_object(j);
    json_kv_string(j, "reference", ci->reference);
    json_end_object(j);
    json_end_object(j);
    free(help);
  }
  json_end_array(j);
}

/* ORIGIN: for a suppressed finding, what suppressed it ("FILE:LINE" or
 * "--disable"), NULL for a finding shown */
static void result(struct json *j, const struct finding *x, size_t index,
                   const char *root, const char *origin)
{
  json_begin_object(j);
  json_kv_string(j, "ruleId", x->kind);
  json_kv_int(j, "ruleIndex", (int64_t)x->check);
  json_kv_string(j, "level", level(x->severity));
  char *text = x->count > 1
                   ? xasprintf("%s (%" PRIu64 " times)", x->message, x->count)
                   : xasprintf("%s", x->message);
  if (x->origin_label) {
    char *t = xasprintf("%s (in %s)", text, x->origin_label);
    free(text);
    text = t;
  }
  for (size_t r = 0; r < x->nrelated; r++)
    if (!placed(&x->related[r].loc)) { /* a note without a place */
      char *t = xasprintf("%s\nnote: %s", text, x->related[r].message);
      free(text);
      text = t;
    }
  if (x->fix) {
    char *t = xasprintf("%s\nfix: %s", text, x->fix);
    free(text);
    text = t;
  }
  json_key(j, "message");
  json_begin_object(j);
  json_kv_string(j, "text", text);
  json_end_object(j);
  free(text);

  json_key(j, "locations");
  json_begin_array(j);
  if (known(&x->loc)) {
    json_begin_object(j);
    location_body(j, &x->loc, root);
    json_end_object(j);
  }
  json_end_array(j);

  size_t nplaced = 0;
  for (size_t r = 0; r < x->nrelated; r++)
    nplaced += placed(&x->related[r].loc);
  if (nplaced) {
    json_key(j, "relatedLocations");
    json_begin_array(j);
    for (size_t r = 0, id = 0; r < x->nrelated; r++) {
      if (!placed(&x->related[r].loc))
        continue;
      json_begin_object(j);
      json_kv_int(j, "id", (int64_t)++id);
      location_body(j, &x->related[r].loc, root);
      json_key(j, "message");
      json_begin_object(j);
      json_kv_string(j, "text", x->related[r].message);
      json_end_object(j);
      json_end_object(j);
    }
    json_end_array(j);
  }

  json_key(j, "partialFingerprints");
  json_begin_object(j);
  json_kv_string(j, "cudalensFingerprint/v1", x->fingerprint);
  json_end_object(j);

  if (origin) {
    char *why = xasprintf("suppressed by %s", origin);
    json_key(j, "suppressions");
    json_begin_array(j);
    json_begin_object(j);
    json_kv_string(j, "kind", "external");
    json_kv_string(j, "justification", why);
    json_end_object(j);
    json_end_array(j);
    free(why);
  }

  json_key(j, "properties");
  json_begin_object(j);
  json_kv_int(j, "id", (int64_t)index);
  json_finding_numbers(j, x);
  json_end_object(j);
  json_end_object(j);
}

void output_sarif(FILE *f, const struct findings *fs,
                  const struct suppressed *sup, const char *source_root)
{
  struct json j;
  json_init(&j, f);
  json_begin_object(&j);
  json_kv_string(&j, "$schema",
                 "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/"
                 "schemas/sarif-schema-2.1.0.json");
  json_kv_string(&j, "version", "2.1.0");
  json_key(&j, "runs");
  json_begin_array(&j);
  json_begin_object(&j);

  json_key(&j, "tool");
  json_begin_object(&j);
  json_key(&j, "driver");
  json_begin_object(&j);
  json_kv_string(&j, "name", "cudalens-report");
  json_kv_string(&j, "version", PACKAGE_VERSION);
  rules(&j);
  json_end_object(&j);
  json_end_object(&j);

  json_key(&j, "results");
  json_begin_array(&j);
  for (size_t i = 0; i < fs->n; i++)
    result(&j, &fs->v[i], i, source_root, NULL);
  for (size_t i = 0; sup && i < sup->list.n; i++)
    result(&j, &sup->list.v[i], fs->n + i, source_root, sup->origin[i]);
  json_end_array(&j);

  json_end_object(&j);
  json_end_array(&j);
  json_end_object(&j);
  json_finish(&j);
}
