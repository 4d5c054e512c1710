/* strarray.c - a strict little parser for JSON arrays of strings, with
 * all of JSON's escapes (\uXXXX and surrogate pairs become UTF-8). */
#include "strarray.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct buf {
  char *s;
  size_t n, cap;
};

static void put(struct buf *b, char c)
{
  GROW(b->s, b->cap, b->n + 2);
  b->s[b->n++] = c;
  b->s[b->n] = 0;
}

static void put_utf8(struct buf *b, unsigned cp)
{
  if (cp < 0x80) {
    put(b, (char)cp);
  } else if (cp < 0x800) {
    put(b, (char)(0xc0 | cp >> 6));
    put(b, (char)(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    put(b, (char)(0xe0 | cp >> 12));
    put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
    put(b, (char)(0x80 | (cp & 0x3f)));
  } else {
    put(b, (char)(0xf0 | cp >> 18));
    put(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
    put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
    put(b, (char)(0x80 | (cp & 0x3f)));
  }
}

static const char *ws(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

static int hex4(const char *p, unsigned *out)
{
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return -1;
  }
  *out = v;
  return 0;
}

/* parse the string starting after its opening quote; NULL on error */
static const char *string(const char *p, struct buf *b)
{
  for (;;) {
    char c = *p++;
    if (c == '"')
      return p;
    if (c == 0 || (unsigned char)c < 0x20)
      return NULL;
    if (c != '\\') {
      put(b, c);
      continue;
    }
    c = *p++;
    switch (c) {
    case '"': put(b, '"'); break;
    case '\\': put(b, '\\'); break;
    case '/': put(b, '/'); break;
    case 'b': put(b, '\b'); break;
    case 'f': put(b, '\f'); break;
    case 'n': put(b, '\n'); break;
    case 'r': put(b, '\r'); break;
    case 't': put(b, '\t'); break;
    case 'u': {
      unsigned cp, lo;
      if (hex4(p, &cp) < 0)
        return NULL;
      p += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u' &&
          hex4(p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        p += 6;
      } else if (cp >= 0xd800 && cp < 0xe000) {
        cp = 0xfffd;
      }
      if (cp == 0)
        cp = 0xfffd; /* keep C strings intact */
      put_utf8(b, cp);
      break;
    }
    default:
      return NULL;
    }
  }
}

int strarray_parse_json(const char *text, char ***v, size_t *n)
{
  if (!text)
    return -1;
  char **out = NULL;
  size_t cnt = 0, cap = 0;
  const char *p = ws(text);
  if (*p++ != '[')
    return -1;
  p = ws(p);
  if (*p == ']') {
    p++;
  } else {
    for (;;) {
      if (*p++ != '"')
        goto bad;
      struct buf b = {0};
      put(&b, 0);
      b.n = 0;
      p = string(p, &b);
      if (!p) {
        free(b.s);
        goto bad;
      }
      GROW(out, cap, cnt + 1);
      out[cnt++] = b.s;
      p = ws(p);
      if (*p == ',') {
        p = ws(p + 1);
        continue;
      }
      if (*p++ != ']')
        goto bad;
      break;
    }
  }
  if (*ws(p))
    goto bad;
  *v = out;
  *n = cnt;
  return 0;
bad:
  strarray_free(out, cnt);
  return -1;
}

void strarray_free(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}
