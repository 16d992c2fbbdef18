/* hrwhash's ketama-libmemcached profile beside libmemcached itself: 100,000 random keys (ASCII,
 * non-ASCII, emoji, {hashtag} forms, arbitrary bytes) on several memberships (weights, ports
 * 11211 and others, non-ASCII host names), and not one disagreement. Needs libmemcached-dev. */
#include <libmemcached/memcached.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"

#define KEYS 100000
#define MAX_NODES 24

static uint64_t state = 0x9e3779b97f4a7c15u;

/* splitmix64: a fixed sequence, so a failure reproduces. */
static uint64_t next(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static const char *const PIECES[] = {"a", "z", "0", ":", "-", "_", "{", "}", "é", "ü", "ß", "ж", "λ", "日", "本",
                                     "語", "한", "😀", "🔑", "🚀", "👩‍👩‍👧", " ", "user", "session"};
#define NPIECES (sizeof PIECES / sizeof PIECES[0])

/* A key of text pieces, a {hashtag} form, or arbitrary bytes; returns its length. */
static size_t random_key(uint8_t *buf, size_t cap) {
    size_t len = 0;
    uint64_t kind = next() % 4;
    if (kind == 3) {
        size_t n = 1 + next() % 24;
        for (size_t i = 0; i < n && len < cap; i++) buf[len++] = (uint8_t)next();
        return len;
    }
    size_t n = 1 + next() % 10;
    for (size_t i = 0; i < n; i++) {
        const char *piece = PIECES[next() % NPIECES];
        size_t pl = strlen(piece);
        if (len + pl + 2 > cap) break;
        if (kind == 2 && i == n / 2) buf[len++] = '{';
        memcpy(buf + len, piece, pl);
        len += pl;
    }
    if (kind == 2 && len < cap) buf[len++] = '}';
    return len;
}

typedef struct {
    char host[64];
    unsigned short port;
    unsigned weight;
    char id[96];
} server;

static void membership(size_t round, server *s, size_t n) {
    static const char *const HOSTS[] = {"cache", "10.0.0.", "café", "東京", "ключ", "🚀", "memcached-"};
    for (size_t i = 0; i < n; i++) {
        snprintf(s[i].host, sizeof s[i].host, "%s%zu", HOSTS[(round + i) % 7], i);
        s[i].port = (unsigned short)(next() % 3 == 0 ? 11211 + next() % 5 : 11211);
        s[i].weight = round % 2 == 0 ? 1 : 1 + (unsigned)(next() % 10);
        snprintf(s[i].id, sizeof s[i].id, "%.63s:%hu", s[i].host, s[i].port);
    }
}

int main(void) {
    static const size_t SIZES[] = {1, 2, 3, 5, 8, 13, 24};
    const size_t rounds = sizeof SIZES / sizeof SIZES[0];
    unsigned long compared = 0, disagreements = 0;
    uint8_t key[256];
    for (size_t r = 0; r < rounds; r++) {
        server s[MAX_NODES];
        size_t n = SIZES[r];
        membership(r, s, n);
        memcached_st *memc = memcached_create(NULL);
        CHECK(memc != NULL, "memcached_create");
        if (memc == NULL) break;
        CHECK(memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) == MEMCACHED_SUCCESS,
              "weighted ketama");
        const uint8_t *ids[MAX_NODES];
        size_t lens[MAX_NODES];
        double weights[MAX_NODES];
        for (size_t i = 0; i < n; i++) {
            CHECK(memcached_server_add_with_weight(memc, s[i].host, (in_port_t)s[i].port, s[i].weight) ==
                      MEMCACHED_SUCCESS,
                  "add %s", s[i].id);
            ids[i] = (const uint8_t *)s[i].id;
            lens[i] = strlen(s[i].id);
            weights[i] = s[i].weight;
        }
        hrw_profile_placement *p = NULL;
        const char *name = "ketama-libmemcached";
        hrw_status st = hrw_profile_placement_new((const uint8_t *)name, strlen(name), ids, lens, weights, n, &p, NULL);
        CHECK(st == HRW_STATUS_OK, "ketama-libmemcached over %zu servers: %s", n, hrw_status_message(st));
        if (st == HRW_STATUS_OK) {
            size_t per_round = KEYS / rounds + (r < KEYS % rounds);
            for (size_t k = 0; k < per_round; k++) {
                size_t len = random_key(key, sizeof key);
                size_t ours = SIZE_MAX;
                hrw_profile_placement_owner(p, key, len, &ours);
                uint32_t theirs = memcached_generate_hash(memc, (const char *)key, len);
                compared++;
                if (ours != theirs) {
                    if (disagreements++ < 5)
                        fprintf(stderr, "%zu servers, key of %zu bytes: hrwhash %zu, libmemcached %u\n", n, len,
                                ours, theirs);
                }
            }
        }
        hrw_profile_placement_free(p);
        memcached_free(memc);
    }
    CHECK(compared == KEYS, "compared %lu keys", compared);
    CHECK(disagreements == 0, "%lu of %lu keys placed differently from libmemcached", disagreements, compared);
    printf("ketama-libmemcached beside libmemcached %s: %lu keys, %lu disagreements\n", LIBMEMCACHED_VERSION_STRING,
           compared, disagreements);
    return check_report("test_profiles_libmemcached");
}
