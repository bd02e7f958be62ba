#ifndef UNIFIEDCACHE_CCURL_SHIM_H
#define UNIFIEDCACHE_CCURL_SHIM_H

// libcurl's setopt/getinfo entry points are C variadics, which Swift cannot call.
// Each wrapper below fixes the type of the third argument so the call is well-defined.

#include <curl/curl.h>

// MARK: - Easy handle options

static inline CURLcode ucc_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ucc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// Strings are copied by libcurl (except CURLOPT_POSTFIELDS, which this package never uses).
static inline CURLcode ucc_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ucc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ucc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ucc_easy_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}

static inline CURLcode ucc_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ucc_easy_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

/// libcurl's pre-request callback type (CURLOPT_PREREQFUNCTION), declared here for every libcurl version.
typedef int (*ucc_prereq_callback)(void *userdata, char *primary_ip, char *local_ip, int primary_port,
                                   int local_port);

/// Installs the pre-request callback, called before every attempt to send the request (libcurl >= 7.80.0).
/// Older versions answer CURLE_NOT_BUILT_IN and the caller falls back to a fresh connection.
static inline CURLcode ucc_easy_setopt_prereq(CURL *handle, ucc_prereq_callback callback, void *userdata) {
#if LIBCURL_VERSION_NUM >= 0x075000
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
    if (code != CURLE_OK) { return code; }
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, userdata);
#else
    (void)handle; (void)callback; (void)userdata;
    return CURLE_NOT_BUILT_IN;
#endif
}

/// Sets only the pre-request callback's user data, for a handle whose callback is already installed.
static inline CURLcode ucc_easy_setopt_prereq_data(CURL *handle, void *userdata) {
#if LIBCURL_VERSION_NUM >= 0x075000
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, userdata);
#else
    (void)handle; (void)userdata;
    return CURLE_NOT_BUILT_IN;
#endif
}

/// Restricts the protocols a transfer and its redirects may use to http and https,
/// so `file://`, `gopher://`, … can never be fetched, whatever libcurl was built with.
static inline CURLcode ucc_easy_restrict_to_http(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (code != CURLE_OK) { return code; }
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (code != CURLE_OK) { return code; }
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

// MARK: - Easy handle information

static inline CURLcode ucc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ucc_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ucc_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ucc_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: - Multi handle

static inline CURLMcode ucc_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// The result of a finished transfer lives in a union that Swift imports awkwardly; read it here.
static inline CURLcode ucc_multi_message_result(const CURLMsg *message) {
    return message->data.result;
}

// MARK: - Share handle

static inline CURLSHcode ucc_share_setopt_lock_data(CURLSH *share, CURLSHoption option, curl_lock_data data) {
    return curl_share_setopt(share, option, data);
}

static inline CURLSHcode ucc_share_setopt_lock_function(CURLSH *share, curl_lock_function function) {
    return curl_share_setopt(share, CURLSHOPT_LOCKFUNC, function);
}

static inline CURLSHcode ucc_share_setopt_unlock_function(CURLSH *share, curl_unlock_function function) {
    return curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, function);
}

static inline CURLSHcode ucc_share_setopt_userdata(CURLSH *share, void *userdata) {
    return curl_share_setopt(share, CURLSHOPT_USERDATA, userdata);
}

// MARK: - Constants that Swift does not import (function-like or composite macros)

static const long ucc_global_all = CURL_GLOBAL_ALL;
static const long ucc_pipe_multiplex = CURLPIPE_MULTIPLEX;
static const size_t ucc_error_size = CURL_ERROR_SIZE;
static const size_t ucc_write_abort = 0;
static const int ucc_prereq_ok = 0;     // CURL_PREREQFUNC_OK
static const int ucc_prereq_abort = 1;  // CURL_PREREQFUNC_ABORT
static const CURLversion ucc_version_now = CURLVERSION_NOW;

#endif
