/* threadmem.c - the recorder's per-thread caches, allocated on a thread's
 * first use instead of lying in static thread-local storage, which the C
 * library clears for every thread of every process the shim is preloaded
 * into, CUDA or not (issue 24, item 10: 2.5 KB of caches were a third of
 * the shim's TLS).  A thread's blocks are chained behind one key, whose
 * destructor frees them when the thread exits; a block asked for again by
 * a later destructor is freed on the C library's next round. */
#include <pthread.h>
#include <stdlib.h>

#include "threadmem.h"

struct block {
  struct block *next;
  void **owner; /* the __thread pointer that holds it */
  unsigned char data[]; /* (at 16 bytes: aligned for anything here) */
};

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

static void free_blocks(void *p)
{
  for (struct block *b = p, *next; b; b = next) {
    next = b->next;
    *b->owner = NULL;
    free(b);
  }
}

static void make_key(void) { key_ok = !pthread_key_create(&key, free_blocks); }

void *cl_thread_calloc_new(void **mine, size_t size)
{
  if (*mine)
    return *mine;
  pthread_once(&key_once, make_key);
  if (!key_ok)
    return NULL;
  struct block *b = calloc(1, sizeof *b + size);
  if (!b)
    return NULL;
  b->owner = mine;
  b->next = pthread_getspecific(key);
  if (pthread_setspecific(key, b)) {
    free(b);
    return NULL;
  }
  *mine = b->data;
  return *mine;
}
