#ifndef PHOTODROP_CXMP_H
#define PHOTODROP_CXMP_H
#include <stddef.h>

// Reads the properties of an XMP document (RDF/XML, UTF-8 or UTF-16) with libxml2, safely: no network, no entity
// substitution, and a document with a DTD is refused. libxml2's headers stay in this C target (Swift importing them
// beside Foundation clashes over ICU's).
//
// On success returns 0 and sets *records to a malloc'd buffer of `length` bytes: one record per property value of
// every rdf:Description, in document order, each "<namespace URI><local name>\x1F<value>\x1E". List properties
// (rdf:Alt, rdf:Bag, rdf:Seq) give one record per rdf:li, an x-default alternative first. Control characters 0x1E and
// 0x1F in values are replaced by spaces. Free the buffer with photodrop_xmp_free.
// On failure returns a negative code and writes a message into `error` (NUL-terminated, at most errorCapacity bytes):
// -1 not well-formed, -2 has a DTD, -3 no rdf:RDF, -4 out of memory.
int photodrop_xmp_properties(
    const unsigned char *bytes, size_t count, char **records, size_t *length, char *error, size_t errorCapacity);
void photodrop_xmp_free(char *records);

#endif
