#ifndef PHOTODROP_CCRYPTO_SHIM_H
#define PHOTODROP_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
