#ifndef STRBUF_H
#define STRBUF_H

#include <stddef.h>

/* A growable string buffer. */
struct strbuf {
    char *data;
    size_t len;
    size_t cap;
};

typedef struct strbuf strbuf_t;

void strbuf_init(struct strbuf *buf);

static inline size_t strbuf_len(const struct strbuf *buf)
{
    return buf->len;
}

int strbuf_append(struct strbuf *buf, const char *text, size_t len);

#endif
