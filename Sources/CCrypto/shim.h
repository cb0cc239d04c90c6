#ifndef PHOTODROP_CCRYPTO_SHIM_H
#define PHOTODROP_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/sha.h>

/*
 * SHA-256 through OpenSSL's digest-level functions rather than EVP.
 *
 * SHA256_Init/Update/Final are marked deprecated since OpenSSL 3.0 (in favour of EVP) but are still shipped and
 * run the same assembly (SHA-NI where the CPU has it, chosen by OpenSSL's start-up CPU probe). photodrop uses them
 * on purpose: the first EVP_MD_fetch initialises OpenSSL's provider machinery (the default provider, its name map
 * and algorithm tables), which costs every process about 1.8 MB of resident memory that hashing never needs
 * (measured in BENCHMARKS.md, "Peak memory of import and watch"). These wrappers keep the deprecation in one place.
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/// Starts (or restarts) a SHA-256 over `context`; 1 on success.
static inline int pd_sha256_init(SHA256_CTX *context) { return SHA256_Init(context); }

/// Adds `count` bytes; 1 on success.
static inline int pd_sha256_update(SHA256_CTX *context, const void *bytes, size_t count) {
    return SHA256_Update(context, bytes, count);
}

/// Writes the 32-byte digest to `digest` and leaves `context` finished (start it again with pd_sha256_init).
static inline int pd_sha256_final(unsigned char *digest, SHA256_CTX *context) { return SHA256_Final(digest, context); }

#pragma GCC diagnostic pop
#pragma clang diagnostic pop

#endif
