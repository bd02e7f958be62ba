#ifndef UNIFIEDCACHE_CHIREDIS_SHIM_H
#define UNIFIEDCACHE_CHIREDIS_SHIM_H

// hiredis's command entry points (redisCommand, redisAppendCommand) are C variadics, which Swift cannot call;
// this package formats every command with redisFormatCommandArgv and parses replies with a redisReader; the socket
// (plain or TLS) is the package's own (RedisSocket). The wrappers below cover what Swift cannot reach directly.

#if __has_include(<hiredis/hiredis.h>)
#include <hiredis/hiredis.h>
#else
#include <hiredis.h>
#endif

#include <stdlib.h>

// MARK: - A reader that refuses absurd array counts
//
// hiredis 0.14's reader allocates an announced array (`*544444444\r\n`) in full before a single element arrives:
// one header line makes it calloc gigabytes. The capped reader copies hiredis's default function table and wraps its
// createArray: a count above the limit returns NULL, which the reader reports as an error (REDIS_ERR_OOM) instead of
// allocating. The table travels with the reader (its privdata, which hiredis hands to every read task).

typedef struct uch_capped_functions {
    redisReplyObjectFunctions table;
    void *(*create_array)(const redisReadTask *, int);
    int max_elements;
} uch_capped_functions;

static inline void *uch_capped_create_array(const redisReadTask *task, int elements) {
    const uch_capped_functions *capped = (const uch_capped_functions *)task->privdata;
    if (capped == NULL || elements < 0 || elements > capped->max_elements) { return NULL; }
    return capped->create_array(task, elements);
}

/// A reader whose arrays hold at most `max_elements` elements; free it with uch_capped_reader_free.
static inline redisReader *uch_capped_reader_create(int max_elements) {
    redisReader *reader = redisReaderCreate();
    if (reader == NULL) { return NULL; }
    uch_capped_functions *capped = (uch_capped_functions *)malloc(sizeof(uch_capped_functions));
    if (capped == NULL || reader->fn == NULL || reader->fn->createArray == NULL) {
        free(capped);
        redisReaderFree(reader);
        return NULL;
    }
    capped->table = *reader->fn;
    capped->create_array = reader->fn->createArray;
    capped->max_elements = max_elements;
    capped->table.createArray = uch_capped_create_array;
    reader->fn = &capped->table;
    reader->privdata = capped;
    return reader;
}

static inline void uch_capped_reader_free(redisReader *reader) {
    void *capped = reader->privdata;
    redisReaderFree(reader);  // frees a partial reply through the table, which is still alive
    free(capped);
}

/// Bytes fed but not yet consumed by a reply (a bulk string still arriving).
static inline size_t uch_reader_buffered(const redisReader *reader) { return reader->len - reader->pos; }

/// The reader's error text (a fixed-size array in the struct, awkward to read from Swift).
static inline const char *uch_reader_error_text(const redisReader *reader) { return reader->errstr; }

static inline int uch_reader_error(const redisReader *reader) { return reader->err; }

/// Formats one command in RESP; the caller frees `*target` with redisFreeCommand. Returns the length or -1.
static inline long uch_format_command(char **target, int argc, const char **argv, const size_t *lengths) {
    return redisFormatCommandArgv(target, argc, argv, lengths);
}

// MARK: - Waiting for a reply to the microsecond
//
// poll() takes whole milliseconds, which rounds a loopback reply's wait (tens of µs) up to one. ppoll() takes a
// timespec but is declared only under _GNU_SOURCE, which a module header cannot set for the system's own modules:
// it is declared here under another name bound to the same symbol.

#include <poll.h>
#include <time.h>

#if defined(__linux__)
extern int uch_ppoll_symbol(struct pollfd *fds, nfds_t count, const struct timespec *timeout, const void *mask)
    __asm__("ppoll");
#endif

/// Waits up to `nanoseconds` for `fd` to be readable or closed: 1 when it is, 0 on timeout, -1 on error (errno).
static inline int uch_wait_readable(int fd, long long nanoseconds) {
    struct pollfd descriptor = { fd, POLLIN, 0 };
#if defined(__linux__)
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    return uch_ppoll_symbol(&descriptor, 1, &timeout, NULL);
#else
    return poll(&descriptor, 1, (int)((nanoseconds + 999999LL) / 1000000LL));
#endif
}

static const int uch_ok = REDIS_OK;
static const int uch_reply_string = REDIS_REPLY_STRING;
static const int uch_reply_array = REDIS_REPLY_ARRAY;
static const int uch_reply_integer = REDIS_REPLY_INTEGER;
static const int uch_reply_status = REDIS_REPLY_STATUS;
static const int uch_reply_error = REDIS_REPLY_ERROR;
static const int uch_reader_oom = REDIS_ERR_OOM;

#endif
