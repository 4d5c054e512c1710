/* u64map.c - the open-addressing hash map of u64map.h (linear probing,
 * grown at 50% load; no deletion, which the analyzer does not need). */
#include "u64map.h"

#include <stdlib.h>

#include "util.h"

static size_t slot(uint64_t key, size_t cap)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ULL;
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

void u64map_init(struct u64map *m)
{
  m->keys = m->vals = NULL;
  m->used = NULL;
  m->cap = m->n = 0;
}

void u64map_free(struct u64map *m)
{
  free(m->keys);
  free(m->vals);
  free(m->used);
  u64map_init(m);
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
  if (!m->cap)
    return false;
  for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->used[i])
      return false;
    if (m->keys[i] == key) {
      if (val)
        *val = m->vals[i];
      return true;
    }
  }
}

static void insert(struct u64map *m, uint64_t key, uint64_t val)
{
  size_t i = slot(key, m->cap);
  while (m->used[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  if (!m->used[i])
    m->n++;
  m->used[i] = 1;
  m->keys[i] = key;
  m->vals[i] = val;
}

void u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
  if ((m->n + 1) * 2 > m->cap) {
    struct u64map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = xmalloc(m->cap * sizeof *m->keys);
    m->vals = xmalloc(m->cap * sizeof *m->vals);
    m->used = xcalloc(m->cap, 1);
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.used[i])
        insert(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
    free(old.used);
  }
  insert(m, key, val);
}
