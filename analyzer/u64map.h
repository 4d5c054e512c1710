/* u64map.h - an open-addressing hash map from uint64_t keys to uint64_t
 * values, used for the analyzer's caches (addresses, stacks, kernels). */
#ifndef CL_REPORT_U64MAP_H
#define CL_REPORT_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
  uint64_t *keys;
  uint64_t *vals;
  unsigned char *used;
  size_t cap, n;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* true and *val when key is present */
bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
void u64map_put(struct u64map *m, uint64_t key, uint64_t val);

#endif
