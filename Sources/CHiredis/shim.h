#ifndef UNIFIEDCACHE_CHIREDIS_SHIM_H
#define UNIFIEDCACHE_CHIREDIS_SHIM_H

// hiredis's command entry points (redisCommand, redisAppendCommand) are C variadics, which Swift cannot call;
// this package sends every command through redisAppendCommandArgv. The wrappers below cover what Swift cannot
// reach directly: a fixed-size error buffer, the blocking flag, and struct timeval construction.

#if __has_include(<hiredis/hiredis.h>)
#include <hiredis/hiredis.h>
#else
#include <hiredis.h>
#endif
#include <fcntl.h>
#include <sys/time.h>

/// Connects with a bounded wait; the context may carry an error (check `err`) and must be freed either way.
static inline redisContext *uch_connect(const char *host, int port, long timeout_ms) {
    struct timeval tv;
    tv.tv_sec = timeout_ms / 1000;
    tv.tv_usec = (timeout_ms % 1000) * 1000;
    return redisConnectWithTimeout(host, port, tv);
}

/// Bounds every blocking read and write on the context's socket (SO_RCVTIMEO / SO_SNDTIMEO).
static inline int uch_set_timeout(redisContext *context, long timeout_ms) {
    struct timeval tv;
    tv.tv_sec = timeout_ms / 1000;
    tv.tv_usec = (timeout_ms % 1000) * 1000;
    return redisSetTimeout(context, tv);
}

/// Switches a connected context to non-blocking I/O: redisBufferRead/redisBufferWrite then return at once when
/// the socket has nothing to give or take, so an event loop drives them with poll().
static inline int uch_set_nonblocking(redisContext *context) {
    int flags = fcntl(context->fd, F_GETFL);
    if (flags < 0 || fcntl(context->fd, F_SETFL, flags | O_NONBLOCK) < 0) { return REDIS_ERR; }
    context->flags &= ~REDIS_BLOCK;
    return REDIS_OK;
}

/// The context's error text (a fixed-size array in the struct, awkward to read from Swift).
static inline const char *uch_error_text(const redisContext *context) {
    return context->errstr;
}

static const int uch_ok = REDIS_OK;
static const int uch_reply_string = REDIS_REPLY_STRING;
static const int uch_reply_array = REDIS_REPLY_ARRAY;
static const int uch_reply_integer = REDIS_REPLY_INTEGER;
static const int uch_reply_status = REDIS_REPLY_STATUS;
static const int uch_reply_error = REDIS_REPLY_ERROR;

#endif
