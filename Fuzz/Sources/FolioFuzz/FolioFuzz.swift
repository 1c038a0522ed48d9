// libFuzzer entry point for Folio's package loader.
//
// Each input becomes the `document.xml` of a package folder that is created
// once per process and reused, and `DocumentPackage(url:).read()` reads it
// (and `Schema(contentsOf:)`, for inputs that are standalone schema files).
// Thrown `PackageError`s are the expected outcome for almost every input;
// what counts as a finding is a crash (including a Swift runtime trap such as
// an index out of range or an arithmetic overflow), an AddressSanitizer
// report, a timeout (a hang) or an RSS above libFuzzer's limit.
//
// A document that loads is also checked: the graph's invariants must hold,
// and writing it and reading the result back must give an equal graph
// (set FOLIO_FUZZ_ROUNDTRIP=0 to skip the round trip). A failure there traps
// too, so libFuzzer keeps the input.

import Foundation
@testable import FolioCore

/// `/tmp/folio-fuzz-PID/` holding `In.folio/` (the input, with one blob the
/// dictionary names) and `Out.folio/` (the round trip). Made once per process.
private let workFolder: URL = {
    let base = URL(filePath: NSTemporaryDirectory()).appendingPathComponent("folio-fuzz-\(getpid())", isDirectory: true)
    let input = base.appendingPathComponent("In.folio/blobs", isDirectory: true)
    try? FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try? Data([0, 1, 2, 255]).write(to: input.appendingPathComponent("a.bin"))
    try? FileManager.default.createDirectory(
        at: base.appendingPathComponent("Out.folio", isDirectory: true),
        withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "/folio-fuzz-\(getpid())") }
    return base
}()

private let inputPackage = DocumentPackage(url: workFolder.appendingPathComponent("In.folio", isDirectory: true))
private let outputPackage = DocumentPackage(url: workFolder.appendingPathComponent("Out.folio", isDirectory: true))
private let roundTrip = ProcessInfo.processInfo.environment["FOLIO_FUZZ_ROUNDTRIP"] != "0"
/// FOLIO_FUZZ_VERBOSE=1 prints each input's outcome (to check what seeds reach).
private let verbose = ProcessInfo.processInfo.environment["FOLIO_FUZZ_VERBOSE"] != nil

/// Replaces the file's content with `bytes` (no fsync: the fuzzer only needs the page cache).
private func overwrite(_ path: String, with bytes: UnsafeRawBufferPointer) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { fatalError("fuzz harness: cannot open \(path): errno \(errno)") }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            fatalError("fuzz harness: cannot write \(path): errno \(errno)")
        }
        offset += written
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    overwrite(inputPackage.documentPath, with: UnsafeRawBufferPointer(start: data, count: size))
    // The same loader reads standalone schema files (`folio new --schema`): an
    // input whose root is <schema> goes that way too; others stop at the root.
    if let schema = try? Schema(contentsOf: URL(filePath: inputPackage.documentPath)) {
        if verbose { print("read a schema of \(schema.entities.count) entities") }
        _ = schema.xmlText
    }
    let graph: ObjectGraph
    do {
        graph = try inputPackage.read()
    } catch {
        // Refused: the expected outcome. Make sure describing the error is safe too.
        let text = error.description
        if verbose { print("refused: \(text)") }
        return 0
    }
    if verbose { print("loaded \(graph.count) objects") }
    let violations = graph.invariantViolations()
    guard violations.isEmpty else {
        fatalError("loaded a graph that breaks its invariants: \(violations.prefix(5))")
    }
    guard roundTrip else { return 0 }
    // Write a package (manifest, parts, blobs) as a save does, then read it back.
    do {
        try outputPackage.write(graph)
    } catch {
        fatalError("could not write a graph that loaded: \(error)")
    }
    let reread: ObjectGraph
    do {
        reread = try outputPackage.read()
    } catch {
        fatalError("Folio refused a document it wrote itself: \(error)")
    }
    let before = graph.snapshot()
    let after = reread.snapshot()
    guard before == after else {
        fatalError("round trip changed the graph:\nloaded:\n\(before)\nre-read:\n\(after)")
    }
    return 0
}

// SwiftPM links an executable with `main` defined as TARGET_main (its entry
// point renamed, for testable executables), so libFuzzer's own `main` is never
// pulled from its archive; this entry point runs libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("FolioFuzz_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzz(data, size) }
}
