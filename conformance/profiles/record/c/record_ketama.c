/* Answers the recording protocol (conformance/profiles/record/common.py) with libmemcached's
 * weighted ketama: servers are added with their weights and nothing connects; for each key,
 * memcached_generate_hash names the index of the server it maps to. */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *hex, unsigned char *out, size_t cap) {
    if (strcmp(hex, "-") == 0) return 0;
    size_t n = strlen(hex) / 2;
    if (n > cap) { fprintf(stderr, "input too long\n"); exit(1); }
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) { fprintf(stderr, "bad hex %s\n", hex); exit(1); }
        out[i] = (unsigned char)v;
    }
    return n;
}

int main(void) {
    static char hex[8192];
    static unsigned char buf[4096];
    unsigned nodes, keys;
    while (scanf(" case %u %u", &nodes, &keys) == 2) {
        memcached_st *memc = memcached_create(NULL);
        if (!memc || memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) != MEMCACHED_SUCCESS) {
            fprintf(stderr, "cannot set up weighted ketama\n");
            return 1;
        }
        for (unsigned i = 0; i < nodes; i++) {
            unsigned weight, port;
            if (scanf(" node %u %u %8191s", &weight, &port, hex) != 3) { fprintf(stderr, "bad node line\n"); return 1; }
            size_t n = unhex(hex, buf, sizeof buf - 1);
            buf[n] = 0;
            /* Port 65536 (no TCP port) asks for a UNIX socket added as such, which keeps port 0. */
            memcached_return_t rc =
                port == 65536 ? memcached_server_add_unix_socket_with_weight(memc, (const char *)buf, weight)
                              : memcached_server_add_with_weight(memc, (const char *)buf, (in_port_t)port, weight);
            if (rc != MEMCACHED_SUCCESS) {
                fprintf(stderr, "memcached_server_add_with_weight(%s): %s\n", buf, memcached_strerror(memc, rc));
                return 1;
            }
        }
        for (unsigned k = 0; k < keys; k++) {
            if (scanf(" key %8191s", hex) != 1) { fprintf(stderr, "bad key line\n"); return 1; }
            size_t n = unhex(hex, buf, sizeof buf);
            printf("%u\n", memcached_generate_hash(memc, (const char *)buf, n));
        }
        memcached_free(memc);
    }
    return 0;
}
