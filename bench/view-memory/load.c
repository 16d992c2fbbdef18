/* Loads a view file with hrw_view_from_file and prints its fingerprint (bench/view-memory.sh). */
#include <stdio.h>
#include <string.h>

#include "hrwhash.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VIEW\n", argv[0]);
    return 2;
  }
  struct hrw_view *view = NULL;
  hrw_status s = hrw_view_from_file((const uint8_t *)argv[1], strlen(argv[1]), NULL, 0, &view, NULL);
  if (s != HRW_STATUS_OK) {
    fprintf(stderr, "hrw_view_from_file: status %u\n", (unsigned)s);
    return 1;
  }
  uint8_t fp[HRW_VIEW_FINGERPRINT_LEN];
  hrw_view_fingerprint(view, fp, sizeof fp);
  for (size_t i = 0; i < sizeof fp; i++) printf("%02x", fp[i]);
  printf("\n");
  hrw_view_free(view);
  return 0;
}
