/* Which memcached server libmemcached's weighted ketama gives a key, asked without libmemcached. */
#include <hrwhash.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *name = "ketama-libmemcached";
    const uint8_t *ids[] = {(const uint8_t *)"cache-a:11211", (const uint8_t *)"cache-b:11212"};
    const size_t id_lens[] = {13, 13};
    const double weights[] = {3, 1};
    hrw_profile_placement *p = NULL;
    hrw_status st = hrw_profile_placement_new((const uint8_t *)name, strlen(name), ids, id_lens, weights, 2, &p, NULL);
    if (st != HRW_STATUS_OK) {
        fprintf(stderr, "%s\n", hrw_status_message(st));
        return 1;
    }
    size_t owner = 0;
    hrw_profile_placement_owner(p, (const uint8_t *)"user:42", 7, &owner);
    printf("user:42 -> %s\n", (const char *)ids[owner]);

    /* go-redis Ring is unweighted: weights are a typed error, never ignored. */
    hrw_profile_placement *q = NULL;
    st = hrw_profile_placement_new((const uint8_t *)"go-redis-ring-v9", 16, ids, id_lens, weights, 2, &q, NULL);
    printf("%s\n", st == HRW_STATUS_NOT_OFFERED ? "weights not offered" : "unexpected");
    hrw_profile_placement_free(q);
    hrw_profile_placement_free(p);
    return st == HRW_STATUS_NOT_OFFERED ? 0 : 1;
}
