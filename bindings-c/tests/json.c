#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t pos, len;
    int failed;
} parser;

static void skip_ws(parser *p) {
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) != NULL) p->pos++;
}

static void *xrealloc(void *ptr, size_t n) {
    void *q = realloc(ptr, n ? n : 1);
    if (q == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return q;
}

static int fail(parser *p, const char *what) {
    if (!p->failed) fprintf(stderr, "json: %s at byte %zu\n", what, p->pos);
    p->failed = 1;
    return 0;
}

static int parse_value(parser *p, jvalue *out);

static int hex4(parser *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (p->pos >= p->len) return 0;
        char h = p->s[p->pos++];
        int d = h >= '0' && h <= '9' ? h - '0'
                : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (h | 0x20) - 'a' + 10
                                                         : -1;
        if (d < 0) return 0;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 1;
}

static int parse_string(parser *p, char **out, size_t *out_len) {
    size_t cap = 16, n = 0;
    char *buf = xrealloc(NULL, cap);
    p->pos++; /* opening quote */
    while (p->pos < p->len && p->s[p->pos] != '"') {
        char c = p->s[p->pos++];
        if (c == '\\') {
            if (p->pos >= p->len) break;
            char e = p->s[p->pos++];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                if (!hex4(p, &v)) {
                    free(buf);
                    return fail(p, "bad \\u escape");
                }
                if (v >= 0xD800 && v <= 0xDBFF) {
                    unsigned lo = 0;
                    if (p->pos + 2 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                        free(buf);
                        return fail(p, "lone surrogate escape");
                    }
                    p->pos += 2;
                    if (!hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        free(buf);
                        return fail(p, "lone surrogate escape");
                    }
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                } else if (v >= 0xDC00 && v <= 0xDFFF) {
                    free(buf);
                    return fail(p, "lone surrogate escape");
                }
                /* Escaped text becomes its UTF-8 bytes, as if it had been written unescaped. */
                char utf8[4];
                size_t k = 0;
                if (v < 0x80) {
                    utf8[k++] = (char)v;
                } else if (v < 0x800) {
                    utf8[k++] = (char)(0xC0 | (v >> 6));
                    utf8[k++] = (char)(0x80 | (v & 0x3F));
                } else if (v < 0x10000) {
                    utf8[k++] = (char)(0xE0 | (v >> 12));
                    utf8[k++] = (char)(0x80 | ((v >> 6) & 0x3F));
                    utf8[k++] = (char)(0x80 | (v & 0x3F));
                } else {
                    utf8[k++] = (char)(0xF0 | (v >> 18));
                    utf8[k++] = (char)(0x80 | ((v >> 12) & 0x3F));
                    utf8[k++] = (char)(0x80 | ((v >> 6) & 0x3F));
                    utf8[k++] = (char)(0x80 | (v & 0x3F));
                }
                while (n + k + 1 >= cap) buf = xrealloc(buf, cap *= 2);
                memcpy(buf + n, utf8, k - 1);
                n += k - 1;
                c = utf8[k - 1];
                break;
            }
            default: c = e;
            }
        }
        if (n + 1 >= cap) buf = xrealloc(buf, cap *= 2);
        buf[n++] = c;
    }
    if (p->pos >= p->len) {
        free(buf);
        return fail(p, "unterminated string");
    }
    p->pos++;
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 1;
}

static int parse_list(parser *p, jvalue *out, int is_object) {
    size_t cap = 4;
    out->type = is_object ? J_OBJ : J_ARR;
    out->items = xrealloc(NULL, cap * sizeof *out->items);
    out->keys = is_object ? xrealloc(NULL, cap * sizeof *out->keys) : NULL;
    out->len = 0;
    char close = is_object ? '}' : ']';
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 1;
    }
    for (;;) {
        if (out->len == cap) {
            cap *= 2;
            out->items = xrealloc(out->items, cap * sizeof *out->items);
            if (is_object) out->keys = xrealloc(out->keys, cap * sizeof *out->keys);
        }
        skip_ws(p);
        if (is_object) {
            size_t klen;
            if (p->pos >= p->len || p->s[p->pos] != '"') return fail(p, "expected a key");
            if (!parse_string(p, &out->keys[out->len], &klen)) return 0;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(out->keys[out->len]);
                return fail(p, "expected ':'");
            }
            p->pos++;
        }
        if (!parse_value(p, &out->items[out->len])) {
            if (is_object) free(out->keys[out->len]);
            return 0;
        }
        out->len++;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return 1;
        }
        return fail(p, "expected ',' or a closing bracket");
    }
}

static int parse_value(parser *p, jvalue *out) {
    memset(out, 0, sizeof *out);
    skip_ws(p);
    if (p->pos >= p->len) return fail(p, "unexpected end");
    char c = p->s[p->pos];
    if (c == '"') {
        out->type = J_STR;
        return parse_string(p, &out->str, &out->len);
    }
    if (c == '[' || c == '{') return parse_list(p, out, c == '{');
    if (strncmp(p->s + p->pos, "true", 4) == 0 || strncmp(p->s + p->pos, "false", 5) == 0) {
        out->type = J_BOOL;
        out->boolean = c == 't';
        p->pos += out->boolean ? 4 : 5;
        return 1;
    }
    if (strncmp(p->s + p->pos, "null", 4) == 0) {
        out->type = J_NULL;
        p->pos += 4;
        return 1;
    }
    size_t start = p->pos;
    while (p->pos < p->len && strchr("+-0123456789.eE", p->s[p->pos]) != NULL) p->pos++;
    if (p->pos == start) return fail(p, "unexpected character");
    out->type = J_NUM;
    out->len = p->pos - start;
    out->str = xrealloc(NULL, out->len + 1);
    memcpy(out->str, p->s + start, out->len);
    out->str[out->len] = '\0';
    return 1;
}

static void free_inner(jvalue *v) {
    if (v->type == J_ARR || v->type == J_OBJ) {
        for (size_t i = 0; i < v->len; i++) {
            free_inner(&v->items[i]);
            if (v->keys) free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
    free(v->str);
}

void json_free(jvalue *v) {
    if (v == NULL) return;
    free_inner(v);
    free(v);
}

jvalue *json_load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = xrealloc(NULL, (size_t)size);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    parser p = {text, 0, got, 0};
    jvalue *root = xrealloc(NULL, sizeof *root);
    int ok = parse_value(&p, root);
    free(text);
    if (!ok) {
        /* A partial tree is not worth freeing piecewise: the test fails right after. */
        return NULL;
    }
    return root;
}

const jvalue *json_get(const jvalue *obj, const char *key) {
    if (obj == NULL || obj->type != J_OBJ) return NULL;
    for (size_t i = 0; i < obj->len; i++)
        if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return NULL;
}
