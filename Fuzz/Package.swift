// swift-tools-version: 6.1
import PackageDescription

// A libFuzzer target for Folio's package loader, kept in its own package so the
// library itself is built without sanitizers. Its entry point, FolioFuzz_main
// (SwiftPM's name for an executable's main), runs libFuzzer's driver. Build and
// run from this folder:
//   ./run.sh 600        (builds, seeds the corpus, fuzzes for 600 seconds)
// or by hand (run.sh explains the flags):
//   swift build -c release --sanitize=address \
//       -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -enable-testing
let package = Package(
    name: "FolioFuzz",
    dependencies: [
        .package(name: "Folio", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "FolioFuzz",
            dependencies: [
                .product(name: "FolioCore", package: "Folio"),
            ],
            // libFuzzer's main is linked into this target alone: given to every
            // product (--sanitize=fuzzer), it would also go into the macro
            // plug-in (a main of its own) of a build that has one; FolioCore,
            // the library without the macros, builds none.
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
