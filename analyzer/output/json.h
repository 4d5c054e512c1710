/* json.h - a small streaming JSON writer: pretty-printed (two-space indent),
 * commas placed by the writer, strings escaped (including control
 * characters; invalid UTF-8 bytes become U+FFFD). */
#ifndef CL_REPORT_JSON_H
#define CL_REPORT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

struct json {
  FILE *f;
  int depth;
  bool first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
  bool after_key;             /* a key was written; the value follows */
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_double(struct json *j, double v, int decimals); /* non-finite: null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* finish the document with a newline */
void json_finish(struct json *j);

/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, int64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);

/* FRAGMENT, members written by a writer at depth FROM whose object had no
 * member yet, as the next members of the object J is writing (its lines
 * indented to J's depth) */
void json_splice(struct json *j, const char *fragment, int from);

/* Is S well-formed JSON (RFC 8259: objects, arrays, strings with their
 * escapes, numbers, true, false, null; nested at most JSON_MAX_DEPTH deep):
 * one value when MEMBERS is false, else the members of an object without
 * its braces (what json_splice takes: "key": value, ...), whitespace
 * around.  Reduced results keep their summary as such a fragment. */
bool json_well_formed(const char *s, bool members);

/* write S as a JSON string literal (with quotes) to F */
void json_write_escaped(FILE *f, const char *s);

#endif
