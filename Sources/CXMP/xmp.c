#include "cxmp.h"
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
    int failed;
} Buffer;

static void append(Buffer *b, const char *bytes, size_t count) {
    if (b->failed) return;
    if (b->length + count + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 1024;
        while (capacity < b->length + count + 1) capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown) { b->failed = 1; return; }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, bytes, count);
    b->length += count;
}

static int is(const xmlNode *node, const char *ns, const char *name) {
    return node && node->type == XML_ELEMENT_NODE && node->ns && node->ns->href && node->name
        && strcmp((const char *)node->ns->href, ns) == 0 && strcmp((const char *)node->name, name) == 0;
}

static void record(Buffer *b, const char *prefix, const xmlChar *ns, const xmlChar *name, const xmlChar *value) {
    append(b, prefix, strlen(prefix));
    append(b, (const char *)ns, strlen((const char *)ns));
    append(b, (const char *)name, strlen((const char *)name));
    append(b, "\x1F", 1);
    if (value) {
        size_t start = b->length;
        append(b, (const char *)value, strlen((const char *)value));
        if (!b->failed)
            for (size_t i = start; i < b->length; i++)
                if (b->data[i] == 0x1E || b->data[i] == 0x1F) b->data[i] = ' ';
    }
    append(b, "\x1E", 1);
}

static void items(Buffer *b, const char *prefix, const xmlNode *property, const xmlNode *list) {
    // The x-default alternative first, then the others in order.
    for (int pass = 0; pass < 2; pass++) {
        for (const xmlNode *li = list->children; li; li = li->next) {
            if (!is(li, RDF, "li")) continue;
            xmlChar *lang = xmlNodeGetLang(li);
            int isDefault = lang && strcmp((const char *)lang, "x-default") == 0;
            if (lang) xmlFree(lang);
            if (isDefault != (pass == 0)) continue;
            xmlChar *text = xmlNodeGetContent(li);
            record(b, prefix, property->ns->href, property->name, text);
            if (text) xmlFree(text);
        }
    }
}

static int isResource(const xmlNode *node) {
    xmlChar *parseType = xmlGetNsProp(node, (const xmlChar *)"parseType", (const xmlChar *)RDF);
    int resource = parseType && strcmp((const char *)parseType, "Resource") == 0;
    if (parseType) xmlFree(parseType);
    return resource;
}

static int hasPropertyAttributes(const xmlNode *node) {
    for (const xmlAttr *a = node->properties; a; a = a->next)
        if (a->ns && a->ns->href && strcmp((const char *)a->ns->href, RDF) != 0) return 1;
    return 0;
}

static void description(Buffer *b, const char *prefix, const xmlNode *node);

// A structure's fields (exif:Flash's exif:Fired, Iptc4xmpCore:CreatorContactInfo …) are recorded under the path
// "<structure namespace><structure name>/<field namespace><field name>", one level deep: fields of a structure inside
// a structure are not recorded.
static void structure(Buffer *b, const char *prefix, const xmlNode *property, const xmlNode *fields) {
    if (prefix[0]) return;
    size_t nsLength = strlen((const char *)property->ns->href);
    size_t nameLength = strlen((const char *)property->name);
    char *path = malloc(nsLength + nameLength + 2);
    if (!path) { b->failed = 1; return; }
    memcpy(path, property->ns->href, nsLength);
    memcpy(path + nsLength, property->name, nameLength);
    path[nsLength + nameLength] = '/';
    path[nsLength + nameLength + 1] = 0;
    description(b, path, fields);
    free(path);
}

// The properties of one rdf:Description (or of a structure's fields, under `prefix`): attributes, simple elements,
// lists, and structures written in any of RDF's three forms (a nested rdf:Description, rdf:parseType="Resource", or
// an empty element whose attributes are the fields).
static void description(Buffer *b, const char *prefix, const xmlNode *node) {
    for (const xmlAttr *a = node->properties; a; a = a->next) {
        if (!a->ns || !a->ns->href || strcmp((const char *)a->ns->href, RDF) == 0) continue;
        xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
        record(b, prefix, a->ns->href, a->name, value);
        if (value) xmlFree(value);
    }
    for (const xmlNode *child = node->children; child; child = child->next) {
        if (child->type != XML_ELEMENT_NODE || !child->ns || !child->ns->href) continue;
        const xmlNode *list = NULL;
        const xmlNode *inner = NULL;
        for (const xmlNode *c = child->children; c; c = c->next) {
            if (is(c, RDF, "Alt") || is(c, RDF, "Bag") || is(c, RDF, "Seq")) { list = c; break; }
            if (is(c, RDF, "Description")) { inner = c; break; }
        }
        if (list) {
            items(b, prefix, child, list);
        } else if (inner) {
            structure(b, prefix, child, inner);
        } else if (isResource(child) || (!child->children && hasPropertyAttributes(child))) {
            structure(b, prefix, child, child);
        } else {
            xmlChar *text = xmlNodeGetContent(child);
            record(b, prefix, child->ns->href, child->name, text);
            if (text) xmlFree(text);
        }
    }
}

static void walk(Buffer *b, const xmlNode *node, int depth, int *sawRDF) {
    if (depth > 64) return;
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE) continue;
        if (is(node, RDF, "RDF")) *sawRDF = 1;
        if (is(node, RDF, "Description")) {
            description(b, "", node);
        } else {
            walk(b, node->children, depth + 1, sawRDF);
        }
    }
}

static pthread_once_t initialised = PTHREAD_ONCE_INIT;
static void initialise(void) { xmlInitParser(); }

int photodrop_xmp_properties(
    const unsigned char *bytes, size_t count, char **records, size_t *length, char *error, size_t errorCapacity) {
    // libxml2 must be initialised once before threads use it.
    pthread_once(&initialised, initialise);
    *records = NULL;
    *length = 0;
    if (count > 0x7FFFFFFF) count = 0x7FFFFFFF;
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
    xmlDocPtr doc = xmlReadMemory((const char *)bytes, (int)count, "sidecar.xmp", NULL, options);
    if (!doc) {
        const xmlError *last = xmlGetLastError();
        snprintf(error, errorCapacity, "not well-formed XML%s%s", last && last->message ? ": " : "",
                 last && last->message ? last->message : "");
        size_t n = strlen(error);
        while (n > 0 && (error[n - 1] == '\n' || error[n - 1] == ' ')) error[--n] = 0;
        return -1;
    }
    if (doc->intSubset || doc->extSubset) {
        xmlFreeDoc(doc);
        snprintf(error, errorCapacity, "has a DTD, which XMP never has; not read (entities are refused)");
        return -2;
    }
    Buffer b = {0};
    int sawRDF = 0;
    walk(&b, xmlDocGetRootElement(doc), 0, &sawRDF);
    xmlFreeDoc(doc);
    if (b.failed) {
        free(b.data);
        snprintf(error, errorCapacity, "out of memory");
        return -4;
    }
    if (!sawRDF) {
        free(b.data);
        snprintf(error, errorCapacity, "no rdf:RDF element; not XMP");
        return -3;
    }
    if (!b.data) b.data = calloc(1, 1);
    *records = b.data;
    *length = b.length;
    return 0;
}

void photodrop_xmp_free(char *records) { free(records); }
