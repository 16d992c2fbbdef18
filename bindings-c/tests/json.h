/* A small JSON reader, enough for conformance/vectors.json and api-cases.json: numbers keep their
 * source text so that weights parse with strtod exactly, and 64-bit integers are strings in the
 * file anyway. Strings are UTF-8, escaped or not; a lone surrogate escape is a parse error. */
#ifndef HRW_TEST_JSON_H
#define HRW_TEST_JSON_H

#include <stddef.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jvalue {
    jtype type;
    char *str;             /* J_STR: decoded text; J_NUM: source text; J_OBJ: unused */
    size_t len;            /* J_STR/J_NUM: length of str; J_ARR/J_OBJ: number of items */
    int boolean;
    struct jvalue *items;  /* J_ARR: elements; J_OBJ: values */
    char **keys;           /* J_OBJ: keys, parallel to items */
} jvalue;

/* Parses a whole file; returns NULL (and prints why) on error. Free with json_free. */
jvalue *json_load(const char *path);
void json_free(jvalue *v);
/* Member of an object, or NULL. */
const jvalue *json_get(const jvalue *obj, const char *key);

#endif
