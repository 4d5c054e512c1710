/* json.c - the streaming JSON writer of json.h. */
#include "output/json.h"

#include <math.h>
#include <string.h>

#include "util.h"

void json_init(struct json *j, FILE *f)
{
  memset(j, 0, sizeof *j);
  j->f = f;
  j->first[0] = true;
}

static void indent(struct json *j)
{
  fputc('\n', j->f);
  for (int i = 0; i < j->depth; i++)
    fputs("  ", j->f);
}

/* before any value: the comma and newline an element needs */
static void value_prefix(struct json *j)
{
  if (j->after_key) {
    j->after_key = false;
    return;
  }
  if (j->depth > 0) {
    if (!j->first[j->depth])
      fputc(',', j->f);
    indent(j);
  }
  j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
  value_prefix(j);
  fputc(c, j->f);
  if (j->depth + 1 < JSON_MAX_DEPTH)
    j->depth++;
  j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
  bool empty = j->first[j->depth];
  if (j->depth > 0)
    j->depth--;
  if (!empty)
    indent(j);
  fputc(c, j->f);
}

void json_begin_object(struct json *j) { open_(j, '{'); }
void json_end_object(struct json *j) { close_(j, '}'); }
void json_begin_array(struct json *j) { open_(j, '['); }
void json_end_array(struct json *j) { close_(j, ']'); }

void json_write_escaped(FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *)str;
  fputc('"', f);
  while (*s) {
    unsigned char c = *s;
    switch (c) {
    case '"': fputs("\\\"", f); s++; continue;
    case '\\': fputs("\\\\", f); s++; continue;
    case '\b': fputs("\\b", f); s++; continue;
    case '\f': fputs("\\f", f); s++; continue;
    case '\n': fputs("\\n", f); s++; continue;
    case '\r': fputs("\\r", f); s++; continue;
    case '\t': fputs("\\t", f); s++; continue;
    default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
      s++;
      continue;
    }
    int n = utf8_len((const char *)s);
    if (n == 0) {
      fputs("\\ufffd", f);
      s++;
      continue;
    }
    if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
      fprintf(f, "\\u%04x", s[1]); /* C1 control (U+0080-U+009F) */
      s += 2;
      continue;
    }
    fwrite(s, 1, (size_t)n, f);
    s += n;
  }
  fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
  value_prefix(j);
  json_write_escaped(j->f, key);
  fputs(": ", j->f);
  j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
  if (!s) {
    json_null(j);
    return;
  }
  value_prefix(j);
  json_write_escaped(j->f, s);
}

void json_int(struct json *j, int64_t v)
{
  value_prefix(j);
  fprintf(j->f, "%lld", (long long)v);
}

void json_uint(struct json *j, uint64_t v)
{
  value_prefix(j);
  fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, double v, int decimals)
{
  if (!isfinite(v)) {
    json_null(j);
    return;
  }
  value_prefix(j);
  fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
  value_prefix(j);
  fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
  value_prefix(j);
  fputs("null", j->f);
}

void json_finish(struct json *j)
{
  fputc('\n', j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
  json_key(j, key);
  json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, int64_t v)
{
  json_key(j, key);
  json_int(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
  json_key(j, key);
  json_bool(j, v);
}

void json_splice(struct json *j, const char *fragment, int from)
{
  if (!j->first[j->depth])
    fputc(',', j->f);
  for (const char *p = fragment; *p; p++) {
    fputc(*p, j->f);
    if (*p == '\n')
      for (int i = from; i < j->depth; i++)
        fputs("  ", j->f);
  }
  j->first[j->depth] = false;
}

/* ---- checking ------------------------------------------------------------ */

static const char *ws(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

/* the end of the JSON string at P (at its quote), or NULL */
static const char *string_end(const char *p)
{
  if (*p++ != '"')
    return NULL;
  for (; *p != '"'; p++) {
    if ((unsigned char)*p < 0x20)
      return NULL; /* the end of S, or a raw control character */
    if (*p == '\\') {
      p++;
      if (*p == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
            return NULL;
        p += 4;
      } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
        return NULL;
      }
    }
  }
  return p + 1;
}

static const char *number_end(const char *p)
{
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9')
      p++;
  else
    return NULL;
  if (*p == '.') {
    if (!(*++p >= '0' && *p <= '9'))
      return NULL;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!(*p >= '0' && *p <= '9'))
      return NULL;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  return p;
}

static const char *value_end(const char *p, int depth);

/* the members "key": value, ... at P (after whitespace), up to the first
 * character that cannot continue them; NULL when malformed */
static const char *members_end(const char *p, int depth)
{
  for (;;) {
    if (!(p = string_end(ws(p))))
      return NULL;
    p = ws(p);
    if (*p++ != ':' || !(p = value_end(p, depth)))
      return NULL;
    p = ws(p);
    if (*p != ',')
      return p;
    p++;
  }
}

static const char *value_end(const char *p, int depth)
{
  p = ws(p);
  if (*p == '{' || *p == '[') {
    if (depth >= JSON_MAX_DEPTH)
      return NULL;
    char close = *p == '{' ? '}' : ']';
    const char *q = ws(p + 1);
    if (*q == close)
      return q + 1;
    if (close == '}') {
      q = members_end(q, depth + 1);
    } else {
      for (q = value_end(q, depth + 1); q && *(q = ws(q)) == ',';)
        q = value_end(q + 1, depth + 1);
    }
    return q && *(q = ws(q)) == close ? q + 1 : NULL;
  }
  if (*p == '"')
    return string_end(p);
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++)
    if (!strncmp(p, words[i], strlen(words[i])))
      return p + strlen(words[i]);
  return number_end(p);
}

bool json_well_formed(const char *s, bool members)
{
  const char *end = members ? members_end(s, 1) : value_end(s, 0);
  return end && !*ws(end);
}
