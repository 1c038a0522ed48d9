/*
 * The C floor for opening a Folio document: libxml2's SAX2 push parser over
 * the same document.xml, with a startElementNs handler that does nothing and
 * nothing materialized. No Swift reader of the same bytes through the same
 * parser can be faster than this.
 *
 * Same driving as Folio's DocumentLoader: xmlCreatePushParserCtxt, options
 * XML_PARSE_NONET, the file read with read(2) in 1 MiB chunks fed to
 * xmlParseChunk.
 *
 *   cc -O2 -o sax_floor sax_floor.c $(pkg-config --cflags --libs libxml-2.0)
 *   ./sax_floor PATH/document.xml [RUNS]
 *
 * Prints one line: "best_seconds=<s> elements=<n> runs=<r>". The benchmark
 * compiles and runs this itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

static unsigned long elements; /* checked once per run, so the parse can't be skipped */

static void start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                          int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                          const xmlChar **attributes) {
    (void)ctx; (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
    (void)nb_attributes; (void)nb_defaulted; (void)attributes;
    elements++;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_once(const char *path, char *chunk, size_t chunk_size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { perror(path); return -1; }
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = start_element;
    xmlParserCtxtPtr parser = xmlCreatePushParserCtxt(&handler, NULL, NULL, 0, path);
    if (!parser) { fprintf(stderr, "xmlCreatePushParserCtxt failed\n"); close(fd); return -1; }
    xmlCtxtUseOptions(parser, XML_PARSE_NONET);
    for (;;) {
        ssize_t count = read(fd, chunk, chunk_size);
        if (count < 0) {
            if (errno == EINTR) continue;
            perror("read");
            break;
        }
        xmlParseChunk(parser, chunk, (int)count, count == 0);
        if (count == 0) break;
    }
    int ok = parser->wellFormed;
    xmlFreeParserCtxt(parser);
    close(fd);
    if (!ok) { fprintf(stderr, "%s is not well-formed\n", path); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s document.xml [runs]\n", argv[0]); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (runs < 1) runs = 1;
    size_t chunk_size = (size_t)1 << 20;
    char *chunk = malloc(chunk_size);
    xmlInitParser();
    double best = 1e300;
    unsigned long counted = 0;
    for (int run = 0; run < runs; run++) {
        elements = 0;
        double start = now();
        if (parse_once(argv[1], chunk, chunk_size) != 0) return 1;
        double elapsed = now() - start;
        if (elapsed < best) best = elapsed;
        counted = elements;
    }
    printf("best_seconds=%.6f elements=%lu runs=%d\n", best, counted, runs);
    free(chunk);
    xmlCleanupParser();
    return 0;
}
