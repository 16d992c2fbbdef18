/* One placement, and one slot table, shared by several threads without locking give the same
 * answers as one thread; copies made meanwhile leave the shared table as it was. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "hrwhash.h"

#define NODES 100
#define KEYS 20000
#define THREADS 8

static hrw_placement *shared;
static size_t expected[KEYS];
static hrw_slot_table *shared_table;
static size_t table_expected[KEYS];

static size_t key_of(int i, char *buf, size_t cap) {
    return (size_t)snprintf(buf, cap, "user:%d", i);
}

static void *worker(void *arg) {
    int offset = *(int *)arg;
    size_t *mismatches = calloc(1, sizeof *mismatches);
    for (int round = 0; round < KEYS; round++) {
        int i = (round + offset * 997) % KEYS;
        char key[32];
        size_t len = key_of(i, key, sizeof key), owner = SIZE_MAX, top[3], n = 0;
        if (hrw_placement_owner(shared, (const uint8_t *)key, len, &owner) != HRW_STATUS_OK ||
            owner != expected[i])
            (*mismatches)++;
        if (hrw_placement_rank(shared, (const uint8_t *)key, len, 3, top, 3, &n) !=
                HRW_STATUS_OK ||
            n != 3 || top[0] != expected[i])
            (*mismatches)++;
        if (hrw_slot_table_owner(shared_table, (const uint8_t *)key, len, &owner, NULL) != HRW_STATUS_OK ||
            owner != table_expected[i])
            (*mismatches)++;
        if (round % 4000 == 0) {
            char id[32];
            hrw_slot_change extra = {HRW_SLOT_OP_ADD, {(const uint8_t *)id, key_of(offset, id, sizeof id), NULL, 0}, 1.0};
            hrw_slot_table *copy = NULL;
            if (hrw_slot_table_with_change(shared_table, &extra, &copy, NULL) != HRW_STATUS_OK)
                (*mismatches)++;
            hrw_slot_table_free(copy);
        }
    }
    return mismatches;
}

int main(void) {
    static char ids[NODES][16];
    hrw_node nodes[NODES];
    double weights[NODES];
    for (int i = 0; i < NODES; i++) {
        size_t n = (size_t)snprintf(ids[i], sizeof ids[i], "node-%d", i);
        nodes[i] = (hrw_node){(const uint8_t *)ids[i], n, NULL, 0};
        weights[i] = 1 + i % 4;
    }
    hrw_placement_options opts = {NULL, 0, weights, NODES};
    hrw_status st = hrw_placement_new(nodes, NODES, &opts, &shared, NULL);
    CHECK(st == HRW_STATUS_OK, "build: %s", hrw_status_message(st));
    if (st != HRW_STATUS_OK) return check_report("test_threads");
    for (int i = 0; i < KEYS; i++) {
        char key[32];
        size_t len = key_of(i, key, sizeof key);
        hrw_placement_owner(shared, (const uint8_t *)key, len, &expected[i]);
    }

    st = hrw_slot_table_new(shared, 4096, NULL, &shared_table, NULL);
    CHECK(st == HRW_STATUS_OK, "slot table: %s", hrw_status_message(st));
    if (st != HRW_STATUS_OK) return check_report("test_threads");
    for (int i = 0; i < KEYS; i++) {
        char key[32];
        size_t len = key_of(i, key, sizeof key);
        hrw_slot_table_owner(shared_table, (const uint8_t *)key, len, &table_expected[i], NULL);
    }

    pthread_t threads[THREADS];
    int offsets[THREADS];
    for (int t = 0; t < THREADS; t++) {
        offsets[t] = t;
        CHECK(pthread_create(&threads[t], NULL, worker, &offsets[t]) == 0, "thread %d", t);
    }
    for (int t = 0; t < THREADS; t++) {
        void *result = NULL;
        pthread_join(threads[t], &result);
        CHECK(result != NULL && *(size_t *)result == 0, "thread %d: %zu mismatches", t,
              result ? *(size_t *)result : (size_t)0);
        free(result);
    }
    hrw_slot_table_figures figures = {0, HRW_SLOT_MODE_LEVELLED, false, 0, 0, 1, NULL, NULL};
    CHECK(hrw_slot_table_summary(shared_table, &figures) == HRW_STATUS_OK && figures.change_count == 0,
          "the copies left the shared table as it was");
    hrw_slot_table_free(shared_table);
    hrw_placement_free(shared);
    return check_report("test_threads");
}
