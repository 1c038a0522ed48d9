#ifndef FOLIO_CLIBXML2_SHIM_H
#define FOLIO_CLIBXML2_SHIM_H

// The only door from Swift into libxml2. Folio uses the SAX2 push parser for
// loading; it never builds a libxml2 tree and never touches the network.
#include <libxml/xmlversion.h>

// Debian's libxml2 is built with ICU, and its encoding.h then includes the
// system's ICU headers, which clash with the copy Foundation ships. Folio never
// uses the encoding-handler struct whose layout this changes.
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/globals.h>

// libxml2 reports some errors with no parser context (its encoding and I/O
// layers) through the thread's global handlers, and a few with xmlGenericError
// directly, whose default prints to stderr. A parse routes the first kind to the
// loader's own structured handler and drops the second (the parser's status and
// the structured error already say what went wrong); the host's handlers are
// restored afterwards. The generic handler is C-variadic, so it lives here.
static void folio_xml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

typedef struct {
    xmlGenericErrorFunc generic;
    void *genericContext;
    xmlStructuredErrorFunc structured;
    void *structuredContext;
} folio_xml_error_handlers;

static inline folio_xml_error_handlers folio_xml_route_errors(void *context, xmlStructuredErrorFunc handler) {
    folio_xml_error_handlers saved = {
        xmlGenericError, xmlGenericErrorContext, xmlStructuredError, xmlStructuredErrorContext
    };
    xmlSetGenericErrorFunc(NULL, folio_xml_ignore_generic_error);
    xmlSetStructuredErrorFunc(context, handler);
    return saved;
}

static inline void folio_xml_restore_errors(folio_xml_error_handlers saved) {
    xmlSetGenericErrorFunc(saved.genericContext, saved.generic);
    xmlSetStructuredErrorFunc(saved.structuredContext, saved.structured);
}

// glibc's malloc_trim: the loader hands back what the threads that parsed a
// package's parts freed (their per-thread arenas keep it otherwise).
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

#endif
