/* hrwhash in the shared peer harness's C slot (hrw_adapter.h). Build flags: see BENCHMARKS.md. */
#include <stdlib.h>
#include <string.h>

#include <hrwhash.h>

#include "hrw_adapter.h"

static void *build(const char *const *ids, const double *weights, size_t n) {
    hrw_node *nodes = calloc(n ? n : 1, sizeof *nodes);
    if (nodes == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        nodes[i].id = (const uint8_t *)ids[i];
        nodes[i].id_len = strlen(ids[i]);
    }
    hrw_placement_options opts = {NULL, 0, weights, weights ? n : 0};
    hrw_placement *p = NULL;
    hrw_status st = hrw_placement_new(nodes, n, &opts, &p, NULL);
    free(nodes);
    return st == HRW_STATUS_OK ? p : NULL;
}

static void destroy(void *p) { hrw_placement_free(p); }

static size_t owner(const void *p, const char *key, size_t len) {
    size_t index = 0;
    hrw_placement_owner(p, (const uint8_t *)key, len, &index);
    return index;
}

static size_t rank(const void *p, const char *key, size_t len, size_t k, size_t *out) {
    size_t count = 0;
    /* The harness's buffer holds min(k, n) entries. */
    hrw_placement_rank(p, (const uint8_t *)key, len, k, out, k, &count);
    return count;
}

static const hrw_adapter hrwhash_adapter = {"hrwhash-c", build, destroy, owner, rank, 1};

const hrw_adapter *const hrw_extra_adapters[] = {&hrwhash_adapter, NULL};
