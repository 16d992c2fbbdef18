#include <hrwhash.h>
#include <stdio.h>
#include <string.h>

/* Every client loads the same view document; a migration routes each key to its new owner. */
int main(void) {
    const char *old_doc = "{\"format\": \"hrwhash-view-v1\", \"algorithm\": \"hrw-v1\", \"epoch\": \"41\","
                          " \"seed\": \"default\", \"nodes\": [{\"id\": \"cache-a\"}, {\"id\": \"cache-b\"}]}";
    const char *new_doc = "{\"format\": \"hrwhash-view-v1\", \"algorithm\": \"hrw-v1\", \"epoch\": \"42\","
                          " \"seed\": \"default\", \"nodes\": [{\"id\": \"cache-a\"}, {\"id\": \"cache-b\"},"
                          " {\"id\": \"cache-c\", \"weight\": 2}]}";
    hrw_view *old_view = NULL, *new_view = NULL;
    hrw_error err;
    if (hrw_view_from_json((const uint8_t *)old_doc, strlen(old_doc), NULL, 0, &old_view, &err) != HRW_STATUS_OK ||
        hrw_view_from_json((const uint8_t *)new_doc, strlen(new_doc), NULL, 0, &new_view, &err) != HRW_STATUS_OK) {
        fprintf(stderr, "load: %s\n", hrw_status_message(err.status));
        return 1;
    }
    hrw_view_figures figures;
    hrw_view_summary(new_view, &figures);
    printf("epoch %llu, fingerprint ", (unsigned long long)figures.epoch);
    for (size_t i = 0; i < sizeof figures.fingerprint; i++) printf("%02x", figures.fingerprint[i]);
    printf("\n");

    hrw_placement *old_placement = NULL, *new_placement = NULL;
    hrw_transition *t = NULL;
    hrw_route route;
    hrw_transition_figures expected;
    const char *key = "user:42";
    if (hrw_view_placement(old_view, &old_placement) != HRW_STATUS_OK ||
        hrw_view_placement(new_view, &new_placement) != HRW_STATUS_OK ||
        hrw_transition_new(old_placement, new_placement, &t) != HRW_STATUS_OK ||
        hrw_transition_route(t, (const uint8_t *)key, strlen(key), &route) != HRW_STATUS_OK ||
        hrw_transition_summary(t, &expected) != HRW_STATUS_OK)
        return 1;
    /* Write to route.new_index; on a miss, read from route.old_index. */
    printf("%s: old node %zu, new node %zu, moved %d; %.0f%% of keys move\n", key, route.old_index,
           route.new_index, route.moved, expected.expected_moved * 100);

    /* A bad document names the member at fault. */
    const char *bad = "{\"format\": \"hrwhash-view-v1\", \"algorithm\": \"hrw-v1\", \"epoch\": \"01\"}";
    hrw_view *none = NULL;
    hrw_status st = hrw_view_from_json((const uint8_t *)bad, strlen(bad), NULL, 0, &none, &err);
    printf("%s: member \"%s\" %s\n", hrw_status_message(st), (const char *)err.field,
           hrw_view_fault_name(err.reason));

    hrw_transition_free(t);
    hrw_placement_free(old_placement);
    hrw_placement_free(new_placement);
    hrw_view_free(old_view);
    hrw_view_free(new_view);
    return st == HRW_STATUS_INVALID_VIEW && none == NULL ? 0 : 1;
}
