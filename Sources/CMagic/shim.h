#ifndef PHOTODROP_CMAGIC_SHIM_H
#define PHOTODROP_CMAGIC_SHIM_H
#include <magic.h>
#endif
