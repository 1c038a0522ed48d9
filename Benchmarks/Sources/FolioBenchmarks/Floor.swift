import Foundation

// The C floor (floor/sax_floor.c): libxml2's SAX2 parser alone over a package's
// XML files, with a handler that only counts elements.

/// What the floor measured on one package.
struct FloorResult {
    /// Best time parsing every XML file of the package on one thread.
    var serial: Double
    /// Best time with one thread per online core (files handed out one at a time).
    var threaded: Double
    var threads: Int
    /// XML files found below the package folder.
    var files: Int
    /// Their total size.
    var bytes: Int
}

/// Compiles floor/sax_floor.c next to this package (once per run of the benchmark).
func compileFloor() throws -> String {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("floor/sax_floor.c").path
    guard FileManager.default.fileExists(atPath: source) else { fail("cannot find \(source)") }
    let binary = "\(benchFolder)/sax_floor"
    let command = "cc -O2 -pthread -o '\(binary)' '\(source)' $(pkg-config --cflags --libs libxml-2.0)"
    log("compiling the C floor: \(command)")
    let result = try runProcess("/bin/sh", ["-c", command])
    guard result.status == 0 else { fail("could not compile \(source) (is libxml2-dev installed?)") }
    return binary
}

/// Runs the floor over every `*.xml` file below `package` (any layout: one
/// document.xml or a folder of parts), best of `runs`.
func runFloor(_ binary: String, package: String, runs: Int) throws -> FloorResult {
    let output = try runProcess(binary, [package, String(runs)])
    let values = keyValues(output.output)
    guard output.status == 0, let serial = values["best_seconds"].flatMap(Double.init),
        let threaded = values["threads_best_seconds"].flatMap(Double.init),
        let threads = values["threads"].flatMap(Int.init), let files = values["files"].flatMap(Int.init),
        let bytes = values["bytes"].flatMap(Int.init)
    else { fail("C floor failed on \(package): \(output.output)") }
    return FloorResult(serial: serial, threaded: threaded, threads: threads, files: files, bytes: bytes)
}
