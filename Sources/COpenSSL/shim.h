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
// The template holds the cipher and the expanded key; each seal or open runs on a copy, so one template serves every
// thread.

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

/// `out` receives the ciphertext (as long as the plaintext); `tag` the 16-byte tag.
static inline int ucs_aes256gcm_seal(
    const EVP_CIPHER_CTX *keyed, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
    const uint8_t *plaintext, size_t length, uint8_t *out, uint8_t tag[16]) {
    if (length > INT32_MAX || aad_length > INT32_MAX) return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0;
    int ok = EVP_CIPHER_CTX_copy(context, keyed) == 1
        && EVP_EncryptInit_ex2(context, NULL, NULL, nonce, NULL) == 1
        && (aad_length == 0 || EVP_EncryptUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (length == 0 || EVP_EncryptUpdate(context, out, &written, plaintext, (int)length) == 1)
        && EVP_EncryptFinal_ex(context, out + (length == 0 ? 0 : written), &written) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

/// 1 when the tag authenticates nonce, associated data and ciphertext; `out` receives the plaintext. On 0 `out` must
/// be discarded.
static inline int ucs_aes256gcm_open(
    const EVP_CIPHER_CTX *keyed, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
    const uint8_t *ciphertext, size_t length, const uint8_t tag[16], uint8_t *out) {
    if (length > INT32_MAX || aad_length > INT32_MAX) return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0;
    uint8_t expected[16];
    for (int index = 0; index < 16; index++) expected[index] = tag[index];
    int ok = EVP_CIPHER_CTX_copy(context, keyed) == 1
        && EVP_DecryptInit_ex2(context, NULL, NULL, nonce, NULL) == 1
        && (aad_length == 0 || EVP_DecryptUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (length == 0 || EVP_DecryptUpdate(context, out, &written, ciphertext, (int)length) == 1)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, expected) == 1
        && EVP_DecryptFinal_ex(context, out + (length == 0 ? 0 : written), &written) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

// MARK: - Randomness and comparison

static inline int ucs_random_bytes(uint8_t *out, size_t length) {
    return length <= INT32_MAX && RAND_bytes(out, (int)length) == 1;
}

/// 0 when equal; reads every byte whatever differs.
static inline int ucs_constant_time_compare(const void *left, const void *right, size_t length) {
    return CRYPTO_memcmp(left, right, length);
}

#endif
