#include <hrwhash.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *ids[] = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
    hrw_node nodes[3];
    for (size_t i = 0; i < 3; i++) {
        nodes[i] = (hrw_node){(const uint8_t *)ids[i], strlen(ids[i]), NULL, 0};
    }
    hrw_placement *placement = NULL;
    hrw_status status = hrw_placement_new(nodes, 3, NULL, &placement, NULL);
    if (status != HRW_STATUS_OK) {
        fprintf(stderr, "hrw_placement_new: %s\n", hrw_status_message(status));
        return 1;
    }

    const char *key = "session:1234";
    size_t owner = 0;
    status = hrw_placement_owner(placement, (const uint8_t *)key, strlen(key), &owner);
    if (status != HRW_STATUS_OK) return 1;

    size_t top[2], count = 0;
    status = hrw_placement_rank(placement, (const uint8_t *)key, strlen(key), 2, top, 2, &count);
    if (status != HRW_STATUS_OK || count != 2 || top[0] != owner) return 1;

    printf("%s -> %s (then %s), %s %s\n", key, ids[owner], ids[top[1]], HRW_ALGORITHM,
           hrw_version());
    hrw_placement_free(placement);
    return 0;
}
