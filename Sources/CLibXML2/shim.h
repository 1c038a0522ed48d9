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

// glibc's malloc_trim: the loader hands back what the threads that parsed a
// package's parts freed (their per-thread arenas keep it otherwise).
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

#endif
