#ifndef PHOTODROP_CXML2_SHIM_H
#define PHOTODROP_CXML2_SHIM_H
// libxml2, for the CXMP target only (see Package.swift).
#include <libxml/parser.h>
#endif
