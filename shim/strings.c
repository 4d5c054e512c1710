/* strings.c - interns kernel names: each distinct string gets a small id once;
 * records carry the id and the writer stores each string once.  A per-thread
 * cache keyed by the caller's pointer (threadmem.c: allocated on the
 * thread's first name) makes the common case lock-free. */
#include <stdlib.h>
#include <string.h>

#include "cudalens/fnv.h"
#include "selftime.h"
#include "shim.h"
#include "threadmem.h"

static pthread_mutex_t strings_lock = PTHREAD_MUTEX_INITIALIZER;
static char **strings;          /* strings[id - 1] */
static uint32_t nstrings, capstrings;
static uint32_t *slots;         /* open addressing: id or 0 */
static uint32_t nslots;

static uint64_t hash(const char *s)
{
  return cl_fnv1a_str(CL_FNV_OFFSET, s);
}

static int grow_slots(void)
{
  uint32_t n = nslots ? nslots * 2 : 1024;
  uint32_t *ns = calloc(n, sizeof *ns);
  if (!ns)
    return -1;
  for (uint32_t i = 0; i < nslots; i++) {
    if (!slots[i])
      continue;
    uint64_t h = hash(strings[slots[i] - 1]);
    for (uint32_t j = (uint32_t)h & (n - 1);; j = (j + 1) & (n - 1))
      if (!ns[j]) {
        ns[j] = slots[i];
        break;
      }
  }
  free(slots);
  slots = ns;
  nslots = n;
  return 0;
}

static uint32_t intern_locked(const char *s)
{
  if ((nstrings + 1) * 2 > nslots && grow_slots())
    return 0;
  uint64_t h = hash(s);
  uint32_t j;
  for (j = (uint32_t)h & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
    if (!strcmp(strings[slots[j] - 1], s))
      return slots[j];
  if (nstrings == capstrings) {
    uint32_t nc = capstrings ? capstrings * 2 : 256;
    char **n = realloc(strings, nc * sizeof *n);
    if (!n)
      return 0;
    strings = n;
    capstrings = nc;
  }
  char *copy = strdup(s);
  if (!copy)
    return 0;
  strings[nstrings++] = copy;
  slots[j] = nstrings;
  return nstrings;
}

/* (a training step launches a few hundred distinct kernels: a smaller cache,
 * or one indexed by the pointer's low bits, missed on most launches and
 * took the lock and hashed the name) */
#define CACHE_BITS 9
#define CACHE (1u << CACHE_BITS)
struct cache_entry {
  const char *ptr;   /* the caller's pointer */
  const char *copy;  /* our interned copy, never freed */
  uint32_t id;
};
static __thread struct cache_entry *cache; /* [CACHE], or NULL */

/* S not in the thread's cache (slot K): the table, under the lock (out of
 * line: the cache hit below needs none of its registers) */
static __attribute__((noinline)) uint32_t intern_slow(const char *s,
                                                      unsigned k)
{
  CL_PHASE_ADD(CL_PH_INTERN_SLOW, 1);
  pthread_mutex_lock(&strings_lock);
  uint32_t id = intern_locked(s);
  const char *copy = id ? strings[id - 1] : NULL;
  pthread_mutex_unlock(&strings_lock);
  if (id && cache) {
    cache[k].ptr = s;
    cache[k].copy = copy;
    cache[k].id = id;
  }
  return id;
}

uint32_t cl_intern(const char *s)
{
  if (!s || !*s)
    return 0;
  unsigned k = cl_hash_bits((uintptr_t)s, CACHE_BITS);
  cl_thread_calloc((void **)&cache, CACHE * sizeof *cache);
  /* the pointer may now hold another name (a module was unloaded), so the
   * content is compared too */
  if (cache && cache[k].ptr == s && cache[k].id && !strcmp(cache[k].copy, s))
    return cache[k].id;
  return intern_slow(s, k);
}

void cl_strings_drain(uint32_t *watermark,
                      void (*fn)(uint32_t id, const char *s, void *), void *arg)
{
  pthread_mutex_lock(&strings_lock);
  for (uint32_t id = *watermark + 1; id <= nstrings; id++)
    fn(id, strings[id - 1], arg);
  *watermark = nstrings;
  pthread_mutex_unlock(&strings_lock);
}

void cl_strings_atfork_prepare(void) { pthread_mutex_lock(&strings_lock); }
void cl_strings_atfork_parent(void) { pthread_mutex_unlock(&strings_lock); }
void cl_strings_atfork_child(void) { pthread_mutex_init(&strings_lock, NULL); }
