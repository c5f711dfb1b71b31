/*
 * A fast LSP echo server for bench_roundtrip.py: Content-Length frames on stdin and stdout.
 *
 * It answers "initialize" with {"capabilities":{}}, "shutdown" with null, exits on "exit",
 * and answers every other request with the same id and a small fixed result. Notifications
 * (no "id") get no answer. Only the top level of each message is scanned, just far enough
 * to find "id" and "method"; nested values are skipped, so an "id" inside params is never
 * taken for the request's.
 *
 * Everything read in one read(2) is answered with one write(2), so pipelined requests cost
 * the server almost nothing and the benchmark measures the client.
 *
 * Build: cc -O2 -o build/echo_server benchmarks/echo_server.c
 */

#define _GNU_SOURCE /* memmem */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define READ_SIZE (64 * 1024)

static char *in_buf;
static size_t in_cap, in_len;
static char *out_buf;
static size_t out_cap, out_len;

static void die(void) { _exit(2); }

static void reserve(char **buf, size_t *cap, size_t need) {
    if (need <= *cap)
        return;
    size_t cap2 = *cap ? *cap : READ_SIZE;
    while (cap2 < need)
        cap2 *= 2;
    char *grown = realloc(*buf, cap2);
    if (grown == NULL)
        die();
    *buf = grown;
    *cap = cap2;
}

static void flush_out(void) {
    size_t done = 0;
    while (done < out_len) {
        ssize_t n = write(1, out_buf + done, out_len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die();
        }
        done += (size_t)n;
    }
    out_len = 0;
}

static void emit(const char *data, size_t len) {
    reserve(&out_buf, &out_cap, out_len + len);
    memcpy(out_buf + out_len, data, len);
    out_len += len;
}

/* Queue one response frame: {"jsonrpc":"2.0","id":<id>,"result":<result>}. */
static void respond(const char *id, size_t id_len, const char *result) {
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char mid[] = ",\"result\":";
    size_t result_len = strlen(result);
    size_t body_len = (sizeof head - 1) + id_len + (sizeof mid - 1) + result_len + 1;
    char header[64];
    int header_len = 0;
    {
        char digits[24];
        int n = 0;
        size_t value = body_len;
        do {
            digits[n++] = (char)('0' + value % 10);
            value /= 10;
        } while (value);
        memcpy(header, "Content-Length: ", 16);
        header_len = 16;
        while (n)
            header[header_len++] = digits[--n];
        memcpy(header + header_len, "\r\n\r\n", 4);
        header_len += 4;
    }
    emit(header, (size_t)header_len);
    emit(head, sizeof head - 1);
    emit(id, id_len);
    emit(mid, sizeof mid - 1);
    emit(result, result_len);
    emit("}", 1);
}

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p is at an opening quote; return the position after the closing one (or NULL). */
static const char *skip_string(const char *p, const char *end) {
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Skip one JSON value; return the position after it (or NULL if it is cut off). */
static const char *skip_value(const char *p, const char *end) {
    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string(p, end);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < end) {
            char c = *p;
            if (c == '"') {
                p = skip_string(p, end);
                if (p == NULL)
                    return NULL;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return p + 1;
            }
            p++;
        }
        return NULL;
    }
    /* A number or a literal: up to the next delimiter. */
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
           *p != '\n' && *p != '\r')
        p++;
    return p;
}

static int equals(const char *p, size_t len, const char *text) {
    return strlen(text) == len && memcmp(p, text, len) == 0;
}

/* Answer one message body. Returns 1 when the server must exit. */
static int handle(const char *body, size_t len) {
    const char *p = body, *end = body + len;
    const char *id = NULL, *method = NULL;
    size_t id_len = 0, method_len = 0;
    p = skip_ws(p, end);
    if (p >= end || *p != '{')
        return 0;
    p++;
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end || *p != '"')
            break;
        const char *key = p + 1;
        const char *after = skip_string(p, end);
        if (after == NULL)
            break;
        size_t key_len = (size_t)(after - 1 - key);
        p = skip_ws(after, end);
        if (p >= end || *p != ':')
            break;
        p = skip_ws(p + 1, end);
        const char *value = p;
        p = skip_value(p, end);
        if (p == NULL)
            break;
        if (key_len == 2 && memcmp(key, "id", 2) == 0) {
            id = value;
            id_len = (size_t)(p - value);
        } else if (key_len == 6 && memcmp(key, "method", 6) == 0 && *value == '"') {
            method = value + 1;
            method_len = (size_t)(p - value - 2);
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p++;
    }
    if (method == NULL)
        return 0; /* a response from the client: nothing to answer */
    if (equals(method, method_len, "exit"))
        return 1;
    if (id == NULL)
        return 0; /* a notification */
    if (equals(method, method_len, "initialize"))
        respond(id, id_len, "{\"capabilities\":{}}");
    else if (equals(method, method_len, "shutdown"))
        respond(id, id_len, "null");
    else
        respond(id, id_len, "{\"ok\":true}");
    return 0;
}

/* Answer every whole frame in the input buffer; keep the rest. Returns 1 to exit. */
static int drain(void) {
    size_t pos = 0;
    int quit = 0;
    while (!quit) {
        char *start = in_buf + pos;
        size_t avail = in_len - pos;
        char *blank = avail >= 4 ? memmem(start, avail, "\r\n\r\n", 4) : NULL;
        if (blank == NULL)
            break;
        long length = -1;
        for (char *line = start; line < blank;) {
            char *eol = memmem(line, (size_t)(blank + 2 - line), "\r\n", 2);
            if (eol == NULL)
                eol = blank;
            if (eol - line > 15 && strncasecmp(line, "content-length:", 15) == 0)
                length = strtol(line + 15, NULL, 10);
            line = eol + 2;
        }
        if (length < 0)
            die(); /* not a frame: give up, as a broken stream cannot be resynchronised */
        size_t body_at = (size_t)(blank + 4 - in_buf);
        if (body_at + (size_t)length > in_len)
            break;
        quit = handle(in_buf + body_at, (size_t)length);
        pos = body_at + (size_t)length;
    }
    memmove(in_buf, in_buf + pos, in_len - pos);
    in_len -= pos;
    return quit;
}

int main(void) {
    reserve(&in_buf, &in_cap, READ_SIZE);
    reserve(&out_buf, &out_cap, READ_SIZE);
    for (;;) {
        reserve(&in_buf, &in_cap, in_len + READ_SIZE);
        ssize_t n = read(0, in_buf + in_len, in_cap - in_len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die();
        }
        if (n == 0)
            break;
        in_len += (size_t)n;
        int quit = drain();
        flush_out();
        if (quit)
            return 0;
    }
    flush_out();
    return 0;
}
