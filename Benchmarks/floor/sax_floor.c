/*
 * The C floor for opening a Folio document: libxml2's SAX2 push parser over
 * the package's XML, with a startElementNs handler that counts and nothing
 * materialized. No Swift reader of the same bytes through the same parser can
 * be faster than this.
 *
 * Same driving as Folio's DocumentLoader: xmlCreatePushParserCtxt, options
 * XML_PARSE_NONET, each file read with read(2) in 1 MiB chunks fed to
 * xmlParseChunk.
 *
 * PATH is one XML file or a package folder; for a folder, every file whose name
 * ends in ".xml" below it (recursively) is parsed, so the floor follows the
 * package layout: one document.xml today, a manifest and many part files later.
 * Each run parses all of them twice: on one thread, then on one thread per
 * online core (files handed out one at a time, so one big file is one thread's
 * work; a single-file package gains nothing from the threads).
 *
 *   cc -O2 -pthread -o sax_floor sax_floor.c $(pkg-config --cflags --libs libxml-2.0)
 *   ./sax_floor PATH [RUNS]
 *
 * Prints one line: "best_seconds=<s> threads_best_seconds=<s> threads=<t>
 * files=<f> bytes=<b> elements=<n> runs=<r>" (best_seconds is the one-thread
 * time). The benchmark compiles and runs this itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

enum { CHUNK_SIZE = 1 << 20 };

/* The XML files to parse, found once before timing. */
static char **files;
static size_t file_count, file_capacity;
static unsigned long long total_bytes;

static void add_file(const char *path, off_t size) {
    if (file_count == file_capacity) {
        file_capacity = file_capacity ? file_capacity * 2 : 64;
        files = realloc(files, file_capacity * sizeof *files);
        if (!files) { perror("realloc"); exit(1); }
    }
    files[file_count++] = strdup(path);
    total_bytes += (unsigned long long)size;
}

static int has_xml_suffix(const char *name) {
    size_t length = strlen(name);
    return length > 4 && strcmp(name + length - 4, ".xml") == 0;
}

/* Collects PATH if it is a file, or every *.xml file below it if it is a folder. */
static int collect(const char *path) {
    struct stat info;
    if (stat(path, &info) != 0) { perror(path); return -1; }
    if (!S_ISDIR(info.st_mode)) {
        add_file(path, info.st_size);
        return 0;
    }
    DIR *dir = opendir(path);
    if (!dir) { perror(path); return -1; }
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        size_t length = strlen(path) + strlen(entry->d_name) + 2;
        char *child = malloc(length);
        snprintf(child, length, "%s/%s", path, entry->d_name);
        struct stat child_info;
        if (stat(child, &child_info) == 0) {
            if (S_ISDIR(child_info.st_mode)) {
                if (collect(child) != 0) { free(child); closedir(dir); return -1; }
            } else if (has_xml_suffix(entry->d_name)) {
                add_file(child, child_info.st_size);
            }
        }
        free(child);
    }
    closedir(dir);
    return 0;
}

static void start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                          int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                          const xmlChar **attributes) {
    (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
    (void)nb_attributes; (void)nb_defaulted; (void)attributes;
    (*(unsigned long *)ctx)++;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses one file, counting its elements into *elements; -1 if it is not well-formed. */
static int parse_once(const char *path, char *chunk, unsigned long *elements) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { perror(path); return -1; }
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = start_element;
    xmlParserCtxtPtr parser = xmlCreatePushParserCtxt(&handler, elements, NULL, 0, path);
    if (!parser) { fprintf(stderr, "xmlCreatePushParserCtxt failed\n"); close(fd); return -1; }
    xmlCtxtUseOptions(parser, XML_PARSE_NONET);
    for (;;) {
        ssize_t count = read(fd, chunk, CHUNK_SIZE);
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

/* Shared by the worker threads of one parallel run. */
static atomic_size_t next_file;
static atomic_ulong parallel_elements;
static atomic_int parallel_failed;

static void *worker(void *unused) {
    (void)unused;
    char *chunk = malloc(CHUNK_SIZE);
    unsigned long elements = 0;
    for (;;) {
        size_t index = atomic_fetch_add(&next_file, 1);
        if (index >= file_count) break;
        if (parse_once(files[index], chunk, &elements) != 0) atomic_store(&parallel_failed, 1);
    }
    atomic_fetch_add(&parallel_elements, elements);
    free(chunk);
    return NULL;
}

/* One run on one thread; returns the seconds, or a negative number on failure. */
static double run_serial(unsigned long *elements) {
    char *chunk = malloc(CHUNK_SIZE);
    *elements = 0;
    double start = now();
    for (size_t i = 0; i < file_count; i++) {
        if (parse_once(files[i], chunk, elements) != 0) { free(chunk); return -1; }
    }
    double elapsed = now() - start;
    free(chunk);
    return elapsed;
}

/* One run on `threads` threads; returns the seconds, or a negative number on failure. */
static double run_parallel(int threads, unsigned long *elements) {
    pthread_t *workers = malloc((size_t)threads * sizeof *workers);
    atomic_store(&next_file, 0);
    atomic_store(&parallel_elements, 0);
    atomic_store(&parallel_failed, 0);
    double start = now();
    for (int t = 0; t < threads; t++) pthread_create(&workers[t], NULL, worker, NULL);
    for (int t = 0; t < threads; t++) pthread_join(workers[t], NULL);
    double elapsed = now() - start;
    free(workers);
    *elements = atomic_load(&parallel_elements);
    return atomic_load(&parallel_failed) ? -1 : elapsed;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s PATH(file or package folder) [runs]\n", argv[0]); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (runs < 1) runs = 1;
    if (collect(argv[1]) != 0) return 1;
    if (file_count == 0) { fprintf(stderr, "no .xml file in %s\n", argv[1]); return 1; }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores > 0 ? (int)cores : 1;
    xmlInitParser();
    double best = 1e300, threads_best = 1e300;
    unsigned long counted = 0, counted_parallel = 0;
    for (int run = 0; run < runs; run++) {
        double elapsed = run_serial(&counted);
        if (elapsed < 0) return 1;
        if (elapsed < best) best = elapsed;
        elapsed = run_parallel(threads, &counted_parallel);
        if (elapsed < 0) return 1;
        if (elapsed < threads_best) threads_best = elapsed;
        if (counted_parallel != counted) { fprintf(stderr, "element counts differ between runs\n"); return 1; }
    }
    printf("best_seconds=%.6f threads_best_seconds=%.6f threads=%d files=%zu bytes=%llu elements=%lu runs=%d\n",
           best, threads_best, threads, file_count, total_bytes, counted, runs);
    for (size_t i = 0; i < file_count; i++) free(files[i]);
    free(files);
    xmlCleanupParser();
    return 0;
}
