#ifndef UNIFIEDCACHE_COPENSSL_SHIM_H
#define UNIFIEDCACHE_COPENSSL_SHIM_H

// OpenSSL 3 (libcrypto, the library libcurl already loads) for every cryptographic primitive of the package.
// Each wrapper below is one named construction done entirely by OpenSSL: the package never implements a primitive.
// Functions return 1 on success and 0 on failure, as OpenSSL's do.

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>

// MARK: - SHA-256

static inline int ucs_sha256(const uint8_t *data, size_t length, uint8_t out[32]) {
    unsigned int written = 0;
    return EVP_Digest(data, length, out, &written, EVP_sha256(), NULL) == 1 && written == 32;
}

// MARK: - HMAC-SHA256 with a keyed template
//
// The template is keyed once; each code is computed on a duplicate, so one template serves every thread (a
// duplicate only reads the template).

static inline EVP_MAC_CTX *ucs_hmac_sha256_new(const uint8_t *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context keeps its own reference
    if (context == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string("digest", digest, 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, key, key_length, parameters) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

static inline void ucs_hmac_free(EVP_MAC_CTX *context) { EVP_MAC_CTX_free(context); }

static inline int ucs_hmac_sha256(
    const EVP_MAC_CTX *keyed, const uint8_t *data, size_t length, uint8_t out[32]) {
    EVP_MAC_CTX *context = EVP_MAC_CTX_dup(keyed);
    if (context == NULL) return 0;
    size_t written = 0;
    int ok = EVP_MAC_update(context, data, length) == 1 && EVP_MAC_final(context, out, &written, 32) == 1
        && written == 32;
    EVP_MAC_CTX_free(context);
    return ok;
}

/// HMAC-SHA256 of `data` on a keyed context of the caller's own, used again: OpenSSL's HMAC starts over under the key
/// it already has when initialised without one, which spares the duplicate and free of ucs_hmac_sha256.
static inline int ucs_hmac_sha256_again(EVP_MAC_CTX *context, const uint8_t *data, size_t length, uint8_t out[32]) {
    size_t written = 0;
    return EVP_MAC_init(context, NULL, 0, NULL) == 1 && EVP_MAC_update(context, data, length) == 1
        && EVP_MAC_final(context, out, &written, 32) == 1 && written == 32;
}

/// A context keyed as `keyed`, for ucs_hmac_sha256_again; free it with ucs_hmac_free.
static inline EVP_MAC_CTX *ucs_hmac_copy(const EVP_MAC_CTX *keyed) { return EVP_MAC_CTX_dup(keyed); }

// MARK: - HKDF-SHA256 (RFC 5869): extract then expand

static inline int ucs_hkdf_sha256(
    const uint8_t *salt, size_t salt_length, const uint8_t *key, size_t key_length, const uint8_t *info,
    size_t info_length, uint8_t *out, size_t out_length) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    if (context == NULL) return 0;
    size_t length = out_length;
    static const uint8_t empty[1] = {0};
    int ok = EVP_PKEY_derive_init(context) == 1 && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1
        && EVP_PKEY_CTX_set1_hkdf_salt(context, salt_length > 0 ? salt : empty, (int)salt_length) == 1
        && EVP_PKEY_CTX_set1_hkdf_key(context, key, (int)key_length) == 1
        && EVP_PKEY_CTX_add1_hkdf_info(context, info_length > 0 ? info : empty, (int)info_length) == 1
        && EVP_PKEY_derive(context, out, &length) == 1 && length == out_length;
    EVP_PKEY_CTX_free(context);
    return ok;
}

// MARK: - AES-256-GCM (96-bit nonce, 128-bit tag) with a keyed template
//
// The template holds the cipher and the expanded key; each seal or open runs on a copy of it that one thread uses at a
// time (the Swift side keeps copies for reuse), so one template serves every thread.

static inline EVP_CIPHER_CTX *ucs_aes256gcm_new(const uint8_t key[32]) {
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    if (cipher == NULL) return NULL;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int ok = context != NULL && EVP_EncryptInit_ex2(context, cipher, key, NULL, NULL) == 1;
    EVP_CIPHER_free(cipher);  // the context keeps its own reference
    if (!ok) {
        EVP_CIPHER_CTX_free(context);
        return NULL;
    }
    return context;
}

static inline void ucs_aes256gcm_free(EVP_CIPHER_CTX *context) { EVP_CIPHER_CTX_free(context); }

/// A context keyed as `keyed`, for the `_with` functions below (one thread at a time); free it with
/// ucs_aes256gcm_free.
static inline EVP_CIPHER_CTX *ucs_aes256gcm_copy(const EVP_CIPHER_CTX *keyed) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_CIPHER_CTX_copy(context, keyed) != 1) {
        EVP_CIPHER_CTX_free(context);
        return NULL;
    }
    return context;
}

/// Seals on a keyed context of the caller's own, started over with `nonce` (the key stays expanded in it).
/// `out` receives the ciphertext (as long as the plaintext); `tag` the 16-byte tag.
static inline int ucs_aes256gcm_seal_with(
    EVP_CIPHER_CTX *context, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
    const uint8_t *plaintext, size_t length, uint8_t *out, uint8_t tag[16]) {
    if (length > INT32_MAX || aad_length > INT32_MAX) return 0;
    int written = 0;
    return EVP_EncryptInit_ex2(context, NULL, NULL, nonce, NULL) == 1
        && (aad_length == 0 || EVP_EncryptUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (length == 0 || EVP_EncryptUpdate(context, out, &written, plaintext, (int)length) == 1)
        && EVP_EncryptFinal_ex(context, out + (length == 0 ? 0 : written), &written) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
}

/// Opens on a keyed context of the caller's own, started over with `nonce`: 1 when the tag authenticates nonce,
/// associated data and ciphertext; `out` receives the plaintext. On 0 `out` must be discarded.
static inline int ucs_aes256gcm_open_with(
    EVP_CIPHER_CTX *context, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
    const uint8_t *ciphertext, size_t length, const uint8_t tag[16], uint8_t *out) {
    if (length > INT32_MAX || aad_length > INT32_MAX) return 0;
    int written = 0;
    uint8_t expected[16];
    for (int index = 0; index < 16; index++) expected[index] = tag[index];
    return EVP_DecryptInit_ex2(context, NULL, NULL, nonce, NULL) == 1
        && (aad_length == 0 || EVP_DecryptUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (length == 0 || EVP_DecryptUpdate(context, out, &written, ciphertext, (int)length) == 1)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, expected) == 1
        && EVP_DecryptFinal_ex(context, out + (length == 0 ? 0 : written), &written) == 1;
}

// MARK: - Randomness and comparison

static inline int ucs_random_bytes(uint8_t *out, size_t length) {
    return length <= INT32_MAX && RAND_bytes(out, (int)length) == 1;
}

/// 0 when equal; reads every byte whatever differs.
static inline int ucs_constant_time_compare(const void *left, const void *right, size_t length) {
    return CRYPTO_memcmp(left, right, length);
}

// MARK: - TLS client connections (libssl), for the Redis links
//
// The socket is the caller's (non-blocking); OpenSSL reaches it through a BIO whose writes use
// send(MSG_NOSIGNAL), so a peer that went away is an error, never a SIGPIPE. Verification settings are OpenSSL's
// own (chain against the CA file/directory, host name or IP address against the certificate); nothing is checked here
// by hand.

static inline int ucs_tls_bio_write(BIO *bio, const char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t written = send(fd, data, (size_t)length, MSG_NOSIGNAL);
    if (written < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(bio);
        return -1;
    }
    return (int)written;
}

static inline int ucs_tls_bio_read(BIO *bio, char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t got = recv(fd, data, (size_t)length, 0);
    if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_read(bio);
        return -1;
    }
    return (int)got;
}

static inline long ucs_tls_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio; (void)number; (void)pointer;
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

/// Refuses to prompt for a key's passphrase (OpenSSL would read the terminal): an encrypted key fails to load.
static inline int ucs_tls_no_passphrase(char *buffer, int size, int writing, void *data) {
    (void)buffer; (void)size; (void)writing; (void)data;
    return 0;
}

/// A client context: TLS 1.2 or later, peer verification on unless `verify_peer` is 0.
static inline SSL_CTX *ucs_tls_context_new(int verify_peer) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL) return NULL;
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) {
        SSL_CTX_free(context);
        return NULL;
    }
    SSL_CTX_set_verify(context, verify_peer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_default_passwd_cb(context, ucs_tls_no_passphrase);
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return context;
}

/// Trusts the CA file and/or directory given, or the system's default store when both are NULL.
static inline int ucs_tls_context_trust(SSL_CTX *context, const char *ca_file, const char *ca_directory) {
    if (ca_file == NULL && ca_directory == NULL) return SSL_CTX_set_default_verify_paths(context);
    return SSL_CTX_load_verify_locations(context, ca_file, ca_directory);
}

/// Loads a client certificate chain and its (unencrypted) private key, and checks that they belong together.
static inline int ucs_tls_context_identity(SSL_CTX *context, const char *certificate_file, const char *key_file) {
    return SSL_CTX_use_certificate_chain_file(context, certificate_file) == 1
        && SSL_CTX_use_PrivateKey_file(context, key_file, SSL_FILETYPE_PEM) == 1
        && SSL_CTX_check_private_key(context) == 1;
}

/// A connection over `fd` expecting `server_name` (a DNS name gets SNI and host name verification; an IP address gets
/// IP verification). `method` must outlive the connection (free it with BIO_meth_free after SSL_free).
static inline SSL *ucs_tls_connection_new(
    SSL_CTX *context, BIO_METHOD **method_out, int fd, const char *server_name, int verify_host) {
    *method_out = NULL;
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ucache-socket");
    if (method == NULL) return NULL;
    BIO_meth_set_write(method, ucs_tls_bio_write);
    BIO_meth_set_read(method, ucs_tls_bio_read);
    BIO_meth_set_ctrl(method, ucs_tls_bio_ctrl);
    SSL *ssl = SSL_new(context);
    BIO *bio = ssl == NULL ? NULL : BIO_new(method);
    if (bio == NULL) {
        SSL_free(ssl);
        BIO_meth_free(method);
        return NULL;
    }
    BIO_set_data(bio, (void *)(intptr_t)fd);
    BIO_set_init(bio, 1);
    SSL_set_bio(ssl, bio, bio);
    unsigned char address[16];
    int is_address = inet_pton(AF_INET, server_name, address) == 1 || inet_pton(AF_INET6, server_name, address) == 1;
    int ok = 1;
    if (!is_address) ok = SSL_set_tlsext_host_name(ssl, server_name) == 1;
    if (ok && verify_host) {
        X509_VERIFY_PARAM *parameters = SSL_get0_param(ssl);
        ok = is_address ? X509_VERIFY_PARAM_set1_ip_asc(parameters, server_name) == 1
                        : X509_VERIFY_PARAM_set1_host(parameters, server_name, 0) == 1;
    }
    if (!ok) {
        SSL_free(ssl);
        BIO_meth_free(method);
        return NULL;
    }
    *method_out = method;
    return ssl;
}

/// The oldest queued OpenSSL error as text (empty when none), and clears the queue.
static inline unsigned long ucs_tls_error_text(char *buffer, size_t size) {
    unsigned long code = ERR_get_error();
    if (size > 0) buffer[0] = 0;
    if (code != 0) ERR_error_string_n(code, buffer, size);
    ERR_clear_error();
    return code;
}

static const long ucs_tls_verify_ok = X509_V_OK;
static const long ucs_tls_verify_expired = X509_V_ERR_CERT_HAS_EXPIRED;
static const long ucs_tls_verify_not_yet_valid = X509_V_ERR_CERT_NOT_YET_VALID;
static const long ucs_tls_verify_host_mismatch = X509_V_ERR_HOSTNAME_MISMATCH;
static const long ucs_tls_verify_ip_mismatch = X509_V_ERR_IP_ADDRESS_MISMATCH;
static const int ucs_tls_want_read = SSL_ERROR_WANT_READ;
static const int ucs_tls_want_write = SSL_ERROR_WANT_WRITE;
static const int ucs_tls_zero_return = SSL_ERROR_ZERO_RETURN;

#endif
